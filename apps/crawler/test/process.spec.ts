import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createTestDatabase, testNatsUrl } from '@wds/testing';

const root = path.resolve(__dirname, '..', '..', '..');

/**
 * The build output is what ships: start `dist/main.js` as a real process against the test NATS and
 * PostgreSQL, probe it, and check SIGTERM ends it cleanly.
 */
describe('crawler process (built output)', () => {
  let testDb: { url: string; drop: () => Promise<void> };
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    execFileSync('npx', ['tsc', '-b', 'apps/crawler/tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
    testDb = await createTestDatabase('crawlerp');
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await testDb.drop();
  });

  it('boots, answers the probes and exits 0 on SIGTERM', async () => {
    let output = '';
    child = spawn(process.execPath, [path.join(root, 'apps/crawler/dist/main.js')], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NATS_URL: testNatsUrl(),
        DATABASE_URL: testDb.url,
        HEALTH_PORT: '0',
        HEALTH_HOST: '127.0.0.1',
        WDS_INSTANCE_ID: 'crawler-process-test',
        SHUTDOWN_GRACE_MS: '5000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));

    const healthUrl = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /"healthUrl":"([^"]+)"/.exec(output);
        if (m) {
          clearInterval(timer);
          resolve(m[1]);
        } else if (child?.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`process exited early:\n${output}`));
        }
      }, 50);
    });

    expect((await fetch(`${healthUrl}/live`)).status).toBe(200);
    const ready = await fetch(`${healthUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(output).toContain('"service":"crawler"');
    expect(output).toContain(
      '"applied":["0001_init.sql","0003_job_tables.sql","0004_team_slots.sql","0005_job_reopen.sql","0006_page_finish.sql","0007_page_finish_plans.sql","0008_page_finish_batch.sql"]',
    );

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"service stopped"');
  }, 60_000);
});
