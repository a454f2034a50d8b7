import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Receiver } from './support/receiver';
import { FAST_ENV, WebhooksStack, jobEvent } from './support/webhooks-harness';

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '..', '..', '..');
const team = 'team-resilience';

describe('webhooks service: network policy and restarts', () => {
  let stack: WebhooksStack;
  let receiver: Receiver;

  beforeAll(async () => {
    // The restart test runs the build output, as it ships.
    execFileSync('npx', ['tsc', '-b', 'apps/webhooks/tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
    receiver = await Receiver.start();
    stack = await WebhooksStack.start();
    stack.secrets.set(team, 'resilience-secret');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('refuses private destinations unless allow-listed, without retrying or connecting', async () => {
    const service = await stack.startService({ WDS_PRIVATE_NETWORK_ALLOWLIST: '' });
    const jobs = {
      loopback: `${receiver.url}/private`,
      localhost: `http://localhost:${receiver.port}/private`,
      metadata: 'http://169.254.169.254/latest/meta-data/',
      rfc1918: 'http://10.0.0.1/hook',
    };
    try {
      const ids = Object.fromEntries(Object.keys(jobs).map((k) => [k, randomUUID()]));
      for (const [name, url] of Object.entries(jobs)) {
        await stack.publish(jobEvent(ids[name], team, 'crawl.completed', { url }));
      }
      for (const name of Object.keys(jobs)) {
        const [entry] = await stack.waitForLog(team, ids[name], (d) => d[0]?.status === 'failed');
        expect(entry.attempts).toBe(1);
        expect(entry.lastError).toMatch(/^destination refused by the network policy/);
      }
      expect(receiver.at('/private')).toHaveLength(0);
    } finally {
      await stack.stopService(service);
    }

    // The same destination, allow-listed, is delivered to.
    const allowed = await stack.startService({ WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${receiver.port}` });
    try {
      const jobId = randomUUID();
      await stack.publish(jobEvent(jobId, team, 'crawl.completed', { url: `${receiver.url}/private` }));
      await receiver.waitFor('/private', 1);
      await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'delivered');
    } finally {
      await stack.stopService(allowed);
    }
  });

  it('loses nothing when the service stops in the middle of retries', async () => {
    const env = {
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${receiver.port}`,
      WDS_WEBHOOK_RETRY_SCHEDULE: '1s',
    };
    receiver.on('/graceful', (n) => (n === 0 ? 500 : 200));
    const first = await stack.startService(env);
    const jobId = randomUUID();
    const event = jobEvent(jobId, team, 'batch_scrape.page', { url: `${receiver.url}/graceful` });
    await stack.publish(event);
    await stack.waitForLog(team, jobId, (d) => d[0]?.attempts === 1 && d[0].status === 'pending');
    await stack.stopService(first);

    // Events published while no instance runs wait on the durable consumer.
    const later = jobEvent(jobId, team, 'batch_scrape.completed', { url: `${receiver.url}/graceful` });
    await stack.publish(later);
    const second = await stack.startService(env);
    try {
      const got = await receiver.waitFor('/graceful', 3);
      expect(got.map((r) => r.body.webhookId)).toEqual([event.webhookId, event.webhookId, later.webhookId]);
      expect(got[1].raw.equals(got[0].raw)).toBe(true);
      const log = await stack.waitForLog(
        team,
        jobId,
        (d) => d.length === 2 && d.every((x) => x.status === 'delivered'),
      );
      expect(log[0].history.map((h) => h.statusCode)).toEqual([500, 200]);
    } finally {
      await stack.stopService(second);
    }
  });

  it('loses nothing when the process is killed (SIGKILL) while a delivery waits for its retry', async () => {
    receiver.on('/killed', (n) => (n === 0 ? 503 : 200));
    const env = {
      ...FAST_ENV,
      WDS_WEBHOOK_RETRY_SCHEDULE: '1500ms',
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${receiver.port}`,
    };
    const victim = await spawnService(stack, env, 'victim');
    const jobId = randomUUID();
    const event = jobEvent(jobId, team, 'crawl.page', { url: `${receiver.url}/killed` });
    try {
      await stack.publish(event);
      await stack.waitForLog(team, jobId, (d) => d[0]?.attempts === 1 && d[0].status === 'pending');
    } finally {
      await victim.kill('SIGKILL');
    }

    const successor = await spawnService(stack, env, 'successor');
    try {
      const got = await receiver.waitFor('/killed', 2);
      expect(got[1].body.webhookId).toBe(event.webhookId);
      expect(got[1].raw.equals(got[0].raw)).toBe(true);
      expect(got[1].headers['x-service-signature']).toBe(got[0].headers['x-service-signature']);
      const [entry] = await stack.waitForLog(team, jobId, (d) => d[0]?.status === 'delivered');
      expect(entry.history.map((h) => h.statusCode)).toEqual([503, 200]);
    } finally {
      await successor.kill('SIGTERM');
    }
    expect(successor.output).toContain('"msg":"service stopped"');
  });
});

interface SpawnedService {
  output: string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** `apps/webhooks/dist/main.js` as its own process; resolves once it reports it started. */
async function spawnService(
  stack: WebhooksStack,
  env: Record<string, string>,
  name: string,
): Promise<SpawnedService> {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'apps/webhooks/dist/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NATS_URL: stack.natsUrl,
      DATABASE_URL: stack.databaseUrl,
      HEALTH_PORT: '0',
      HEALTH_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WDS_INSTANCE_ID: `webhooks-${name}`,
      SHUTDOWN_GRACE_MS: '5000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const spawned = { output: '' } as SpawnedService;
  child.stdout?.on('data', (d: Buffer) => (spawned.output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (spawned.output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  spawned.kill = async (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const deadline = Date.now() + 30_000;
  while (!spawned.output.includes('"msg":"service started"')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await spawned.kill('SIGKILL');
      throw new Error(`webhooks process did not start:\n${spawned.output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return spawned;
}
