import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@wds/local-infra';
import { StackProcess, killMarked, markedProcesses } from './support/stack-process';

// `npm start` with an invalid configuration stops at once and names the variable, instead of
// restarting the failing service until its readiness deadline (it used to retry for 120 s).

describe('npm start with an invalid configuration', () => {
  const mark = randomBytes(8).toString('hex');
  let dataDir: string;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-e2e-badconfig-'));
  });
  afterAll(() => {
    killMarked(mark);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits without waiting for readiness and names the bad variable', async () => {
    const stack = new StackProcess({
      dataDir,
      port: await freePort(),
      mark,
      env: { WDS_BOOTSTRAP_CREDITS: 'plenty' },
    });
    const t0 = Date.now();
    // The readiness wait is long on purpose: the stack must end well before it, by itself.
    await expect(stack.ready(600_000)).rejects.toThrow(/exited[\s\S]*WDS_BOOTSTRAP_CREDITS/);
    const seconds = (Date.now() - t0) / 1000;
    process.stdout.write(`npm start gave up on the bad configuration after ${seconds.toFixed(1)} s\n`);
    // Before, the supervisor restarted the service until the 120 s readiness deadline.
    expect(seconds).toBeLessThan(60);
    // Nothing of the stack is left running (services, NATS, PostgreSQL): the children it was
    // stopping are gone within a minute (a leaked one never is).
    for (const until = Date.now() + 60_000; markedProcesses(mark).length > 0 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(markedProcesses(mark)).toEqual([]);
  }, 660_000);
});
