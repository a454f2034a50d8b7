import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNats, type RunningServer } from '@wds/local-infra';
import { createTestDatabase } from './databases';
import { startFixtureSite, type FixtureSite } from './fixture-site';

/** The repository root (libs/testing/{src,dist} → ../../..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Builds apps (`apps/<name>/tsconfig.build.json`); the tests then run their shipped output. */
export function buildApps(apps: readonly string[]): void {
  for (const app of apps) {
    execFileSync('npx', ['tsc', '-b', `apps/${app}/tsconfig.build.json`], { cwd: REPO_ROOT, stdio: 'pipe' });
  }
}

/** A service started as its own process from `apps/<name>/dist/main.js`. */
export interface ServiceChild {
  name: string;
  child: ChildProcess;
  /** The last 20,000 characters of its stdout and stderr. */
  output(): string;
  exited: Promise<number | null>;
}

/** How long a spawned service may take to log its start (a loaded 2-core machine is slow). */
const READY_DEADLINE_MS = 60_000;

export interface ServiceStack {
  /** A private working directory (the nats-server's data), removed by `stop()`. */
  dir: string;
  site: FixtureSite;
  natsUrl: string;
  databaseUrl: string;
  /** What every service gets: NATS, the database, health on a free loopback port, the fixture site allowed. */
  env: Record<string, string>;
  /** Starts `apps/<name>/dist/main.js` as its own process; resolves once it logged its start (`healthUrl`). */
  spawnService(
    name: string,
    env?: Record<string, string>,
    opts?: { readyTimeoutMs?: number },
  ): Promise<ServiceChild>;
  /** The environment of a service run in this process: the stack's, quiet, its own instance id. */
  inProcessEnv(env?: Record<string, string>): Record<string, string>;
  /**
   * Runs `fn` in `stop()`: with `first`, before the processes stop (services the test runs in this
   * process); else after them and before the infrastructure (the harness's NATS client, pool, consumers).
   */
  onStop(fn: () => Promise<unknown>, opts?: { first?: boolean }): void;
  /** `first` hooks, the processes (newest first: SIGTERM, SIGKILL after 8 s), the other hooks (newest first), the infrastructure. */
  stop(): Promise<void>;
}

/**
 * The infrastructure of a service-level integration test (crawler, batch, ...): a private
 * nats-server, a fresh database (`<name>_…`), the fixture site, the services' environment, and
 * services started as processes. `allowPorts`: more loopback ports the services may fetch from;
 * `env`: more environment for every service. (A NATS client or a pool for the test is the
 * harness's own: this library may not depend on @wds/messaging, whose tests use it.)
 */
export async function startServiceStack(opts: {
  name: string;
  allowPorts?: readonly number[];
  env?: Record<string, string>;
}): Promise<ServiceStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wds-${opts.name}-test-`));
  const nats: RunningServer = await startNats({ dataDir: path.join(dir, 'nats') });
  const testDb = await createTestDatabase(opts.name);
  const site = await startFixtureSite();
  const env: Record<string, string> = {
    NATS_URL: nats.url,
    DATABASE_URL: testDb.url,
    HEALTH_PORT: '0',
    HEALTH_HOST: '127.0.0.1',
    // `service started` (with the healthUrl spawnService waits for) is an info line.
    LOG_LEVEL: 'info',
    WDS_PRIVATE_NETWORK_ALLOWLIST: [site.port, ...(opts.allowPorts ?? [])]
      .map((p) => `127.0.0.1:${p}`)
      .join(','),
    SHUTDOWN_GRACE_MS: '5000',
    ...opts.env,
  };
  const children: ServiceChild[] = [];
  const stopFirst: (() => Promise<unknown>)[] = [];
  const stopAfter: (() => Promise<unknown>)[] = [];

  const spawnService = async (
    name: string,
    more: Record<string, string> = {},
    spawnOpts: { readyTimeoutMs?: number } = {},
  ): Promise<ServiceChild> => {
    const readyWithinMs = spawnOpts.readyTimeoutMs ?? READY_DEADLINE_MS;
    let out = '';
    const child = spawn(process.execPath, [path.join(REPO_ROOT, `apps/${name}/dist/main.js`)], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        ...env,
        WDS_INSTANCE_ID: `${name}-${randomUUID().slice(0, 8)}`,
        ...more,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20000)));
    child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20000)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const svc = { name, child, output: () => out, exited };
    children.push(svc);
    const deadline = Date.now() + readyWithinMs;
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (Date.now() > deadline) {
          clearInterval(timer);
          child.kill('SIGKILL');
          reject(new Error(`${name} not ready within ${readyWithinMs / 1000} s:\n${out}`));
        } else if (out.includes('"healthUrl"')) {
          clearInterval(timer);
          resolve();
        } else if (child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`${name} exited early:\n${out}`));
        }
      }, 50);
    });
    return svc;
  };

  return {
    dir,
    site,
    natsUrl: nats.url,
    databaseUrl: testDb.url,
    env,
    spawnService,
    inProcessEnv: (more = {}) => ({
      ...env,
      LOG_LEVEL: 'fatal',
      WDS_INSTANCE_ID: `in-process-${randomUUID()}`,
      ...more,
    }),
    onStop: (fn, o = {}) => (o.first ? stopFirst : stopAfter).push(fn),
    stop: async () => {
      for (const fn of stopFirst) await fn().catch(() => undefined);
      for (const c of [...children].reverse()) {
        if (c.child.exitCode === null && c.child.signalCode === null) {
          c.child.kill('SIGTERM');
          await Promise.race([c.exited, new Promise((r) => setTimeout(r, 8000).unref())]);
          if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
        }
      }
      for (const fn of [...stopAfter].reverse()) await fn().catch(() => undefined);
      await site.close();
      await testDb.drop();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
