import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BROWSER_SESSION_RPC,
  RPC,
  sessionReplicaRpc,
  type BrowserSessionRecord,
  type SessionExecuteReply,
} from '@wds/contracts';
import { Database, runMigrations } from '@wds/database';
import { freePort } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { buildApps, REPO_ROOT, startServiceStack, type ServiceStack } from '@wds/testing';
import { chromium } from 'playwright-core';

// A warm session browser comes with a node runtime started in its own code sandbox and connected
// to that browser's CDP endpoint (WDS_SESSION_WARM_RUNTIMES), and the session made from it runs its
// first call in that very process. Real billing and browser-pool processes on a private NATS and
// database; what runs is read from /proc (the sandboxes' host uids and processes).

jest.setTimeout(600_000);

const UID_BASE = 284_000;
const CAPACITY = 4;
const TEAM = `team-warm-${randomUUID().slice(0, 8)}`;

interface Proc {
  pid: number;
  uid: number;
  cmdline: string;
}

/** Processes of the sandbox uids of this replica. */
function sandboxProcs(): Proc[] {
  const procs: Proc[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))![1]);
      if (uid < UID_BASE || uid >= UID_BASE + 2 * CAPACITY) continue;
      const cmdline = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      procs.push({ pid: Number(d), uid, cmdline });
    } catch {
      // exited meanwhile
    }
  }
  return procs;
}

function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Connected sockets on a unix socket path, seen in the network namespace of process `pid` (an
 * accepted connection belongs to the connecting side's namespace: the sandbox's own).
 */
function connectionsTo(pid: number, socketPath: string): number {
  return fs
    .readFileSync(`/proc/${pid}/net/unix`, 'utf8')
    .split('\n')
    .filter((l) => {
      const f = l.trim().split(/\s+/);
      return f[7] === socketPath && f[5] === '03';
    }).length;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('browser-pool sessions: runtimes started with the warm browsers', () => {
  let stack: ServiceStack;
  let client: Messaging;
  let sessionDir: string;
  let sessionPort: number;
  let rpc: ReturnType<typeof sessionReplicaRpc>;

  /** A warm browser waiting (no session yet): its id (directory), uids and the node worker's host pid. */
  interface Warm {
    id: string;
    browserUid: number;
    codeUid: number;
    worker: number;
  }

  /** Waiting warm browsers whose node runtime runs (it connects to their relay socket at its first call). */
  const warmReady = (): Warm[] => {
    const procs = sandboxProcs();
    const out: Warm[] = [];
    for (const id of fs.existsSync(sessionDir) ? fs.readdirSync(sessionDir) : []) {
      if (sessions.includes(id)) continue;
      try {
        const browserUid = fs.statSync(path.join(sessionDir, id, 'browser')).uid;
        const worker = procs.find(
          (p) => p.uid === browserUid + 1 && p.cmdline.startsWith('/usr/bin/node /opt/wds/worker.js node'),
        );
        const socket = path.join(sessionDir, id, 'sock', 'cdp.sock');
        if (worker && fs.existsSync(socket))
          out.push({ id, browserUid, codeUid: browserUid + 1, worker: worker.pid });
      } catch {
        // being made or removed
      }
    }
    return out;
  };

  /** Every session the tests made (their directories are not warm browsers). */
  const sessions: string[] = [];
  const create = async (): Promise<BrowserSessionRecord> => {
    const { session } = await client.request(
      BROWSER_SESSION_RPC.create,
      { teamId: TEAM, ttl: 300, activityTtl: 300, maxSessions: 10 },
      { timeoutMs: 120_000 },
    );
    sessions.push(session.id);
    return session;
  };
  const execute = (sessionId: string, code: string): Promise<SessionExecuteReply> =>
    client.request(
      rpc.execute,
      { teamId: TEAM, sessionId, code, language: 'node', timeoutSeconds: 60 },
      { timeoutMs: 90_000 },
    );
  const remove = (sessionId: string) =>
    client.request(rpc.delete, { teamId: TEAM, sessionId }, { timeoutMs: 60_000 });

  beforeAll(async () => {
    buildApps(['billing', 'browser-pool']);
    stack = await startServiceStack({ name: 'browser_pool_warm' });
    // The sandbox uids must be able to reach it (the stack's own directory is private to root).
    sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-warm-runtimes-'));
    fs.chmodSync(sessionDir, 0o711);
    stack.onStop(async () => fs.rmSync(sessionDir, { recursive: true, force: true }));
    sessionPort = await freePort();
    client = await Messaging.connect({
      servers: stack.natsUrl,
      name: 'warm-runtimes-test',
      logger: createLogger({ service: 'test', level: 'fatal' }),
    });
    stack.onStop(() => client.drain());
    // A session holds a row of the gateway's concurrency leases (ADR 0008): its schema, as the gateway makes it.
    const db = new Database({ url: stack.databaseUrl });
    await runMigrations(db, {
      schema: 'gateway',
      dir: path.join(REPO_ROOT, 'apps', 'gateway', 'migrations'),
    });
    await db.close();
    await stack.spawnService('billing');
    const replica = `browser-pool-warm-${randomUUID().slice(0, 8)}`;
    await stack.spawnService(
      'browser-pool',
      {
        WDS_INSTANCE_ID: replica,
        WDS_BROWSER_PROCESSES: '1',
        WDS_BROWSER_SESSIONS: String(CAPACITY),
        WDS_SESSION_WARM_BROWSERS: '2',
        WDS_SESSION_WARM_RUNTIMES: 'node',
        WDS_SESSION_WARM_RUNTIME_UNUSED_SECONDS: '20',
        WDS_SANDBOX_UID_BASE: String(UID_BASE),
        WDS_SESSION_DIR: sessionDir,
        WDS_BROWSER_SESSION_HOST: '127.0.0.1',
        WDS_BROWSER_SESSION_PORT: String(sessionPort),
      },
      // Chromium starts before the service reports ready: slow when the shared machine is loaded.
      { readyTimeoutMs: 240_000 },
    );
    rpc = sessionReplicaRpc(replica);
    await client.request(RPC.creditsGrant, {
      teamId: TEAM,
      amount: 100_000,
      reason: 'test',
      idempotencyKey: `grant-${TEAM}`,
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('hands each session the node runtime started with its own warm browser, and only that one', async () => {
    const warm = await until('two warm browsers with a started node runtime', () => {
      const w = warmReady();
      return w.length === 2 ? w : undefined;
    });
    expect(new Set(warm.map((w) => w.codeUid)).size).toBe(2);

    const sentAt = Date.now();
    const a = await create();
    const fromWarm = warm.find((w) => w.id === a.id);
    expect(fromWarm).toBeDefined(); // the session is the warm browser's (its id, slot and directory)
    const other = warm.find((w) => w.id !== a.id)!;

    // The first call runs in the process started before the session was asked for.
    const first = await execute(a.id, 'Math.round(process.uptime() * 1000)');
    expect(first.exitCode).toBe(0);
    expect(Number(first.result)).toBeGreaterThan(Date.now() - sentAt);
    const workersOfA = sandboxProcs().filter(
      (p) => p.uid === fromWarm!.codeUid && p.cmdline.startsWith('/usr/bin/node /opt/wds/worker.js node'),
    );
    expect(workersOfA.map((p) => p.pid)).toEqual([fromWarm!.worker]);
    // ... connected to its own browser's relay socket (seen in the sandbox's network namespace).
    expect(connectionsTo(fromWarm!.worker, path.join(sessionDir, a.id, 'sock', 'cdp.sock'))).toBeGreaterThan(
      0,
    );

    // A second session from the other warm browser: its own runtime, its own browser.
    const b = await create();
    expect(b.id).toBe(other.id);
    const marked = await execute(
      a.id,
      "globalThis.mark = 'A'; await page.setContent('<title>session A</title>'); await page.title()",
    );
    expect(marked.result).toBe('session A');
    const fromB = await execute(b.id, '[typeof mark, await page.title(), page.url()].join("|")');
    expect(fromB.result).toBe('undefined||about:blank');
    expect(alive(other.worker)).toBe(true);
    expect(
      sandboxProcs()
        .filter((p) => p.uid === other.codeUid && p.cmdline.startsWith('/usr/bin/node /opt/wds/worker.js'))
        .map((p) => p.pid),
    ).toEqual([other.worker]);

    // Seen from outside over each session's own CDP endpoint: A's runtime drove A's browser only.
    for (const [session, title] of [
      [a, 'session A'],
      [b, ''],
    ] as const) {
      const browser = await chromium.connectOverCDP(
        `http://127.0.0.1:${sessionPort}/sessions/${session.id}/${session.token}`,
      );
      try {
        expect(await browser.contexts()[0].pages()[0].title()).toBe(title);
      } finally {
        await browser.close();
      }
    }

    // The runtime ends with its session.
    await remove(a.id);
    await until('session A runtime gone', () => (alive(fromWarm!.worker) ? undefined : true), 30_000);
    expect(fs.existsSync(path.join(sessionDir, a.id))).toBe(false);
    await remove(b.id);
    await until('session B runtime gone', () => (alive(other.worker) ? undefined : true), 30_000);
  });

  it('discards a waiting runtime with its browser, and stops one its session never called', async () => {
    const [warm] = await until('a warm browser with a started node runtime', () => {
      const w = warmReady();
      return w.length ? w : undefined;
    });
    // Its browser dies while waiting: the runtime made for it goes too, and neither is handed out.
    const chrome = sandboxProcs().find(
      (p) =>
        p.uid === warm.browserUid &&
        p.cmdline.includes('--remote-debugging-port') &&
        !p.cmdline.includes('--type='),
    );
    expect(chrome).toBeDefined();
    process.kill(chrome!.pid, 'SIGKILL');
    await until(
      'the runtime of the dead browser gone',
      () => (alive(warm.worker) ? undefined : true),
      30_000,
    );
    await until('its directory removed', () =>
      fs.existsSync(path.join(sessionDir, warm.id)) ? undefined : true,
    );

    // The pool refills; a session that never calls its runtime gets that memory back.
    const refilled = await until('two warm browsers with their runtimes again', () => {
      const w = warmReady();
      return w.length === 2 ? w : undefined;
    });
    const c = await create();
    const fromWarm = refilled.find((w) => w.id === c.id);
    expect(fromWarm).toBeDefined();
    await until(
      'the uncalled runtime stopped (WDS_SESSION_WARM_RUNTIME_UNUSED_SECONDS=20)',
      () => (alive(fromWarm!.worker) ? undefined : true),
      90_000,
    );
    // A call afterwards starts a runtime as usual, against the same browser.
    const later = await execute(c.id, 'page.url()');
    expect(later).toMatchObject({ exitCode: 0, result: 'about:blank' });
    await remove(c.id);
  });
});
