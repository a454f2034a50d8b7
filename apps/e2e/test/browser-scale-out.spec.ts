import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startNats, type RunningServer } from '@wds/local-infra';
import { createTestDatabase } from '@wds/testing';
import { Client } from 'pg';
import { callApi, listenLocal, type LocalServer } from './support/http';
import { REPO_ROOT, startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// Browser sessions spread over two extra browser-pool replicas (the stack's own serves none):
// placement by free capacity, calls routed to the owning replica, SIGTERM drains (ends and bills)
// a replica's sessions, and a killed replica's sessions are ended and billed by the others.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-scale-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;
const REPLICA_TIMEOUT_MS = 4000;

interface Replica {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

describe('browser sessions over two browser-pool replicas', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let nats: RunningServer;
  let db: { url: string; drop: () => Promise<void> };
  let site: LocalServer;
  let natsDir: string;
  const replicas: Replica[] = [];

  const call = (method: string, route: string, body?: unknown, key = KEY) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 120_000 });
  const query = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
    const until = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  function startReplica(name: string, uidBase: number): Replica {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/browser-pool/dist/main.js')], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        NATS_URL: nats.url,
        DATABASE_URL: db.url,
        HEALTH_PORT: '0',
        LOG_LEVEL: 'warn',
        WDS_INSTANCE_ID: name,
        WDS_BROWSER_PROCESSES: '1',
        WDS_BROWSER_SESSIONS: '2',
        WDS_SANDBOX_UID_BASE: String(uidBase),
        WDS_SESSION_REPLICA_TIMEOUT_MS: String(REPLICA_TIMEOUT_MS),
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
        SHUTDOWN_GRACE_MS: '10000',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const replica = { name, child, exited };
    replicas.push(replica);
    return replica;
  }

  beforeAll(async () => {
    site = await listenLocal((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>scale</title><p>scale</p>');
    });
    natsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-e2e-scale-nats-'));
    nats = await startNats({ dataDir: natsDir });
    db = await createTestDatabase('e2e_scale');
    const port = await freePort();
    e2e = await startE2eStack({
      name: 'browser-scale',
      port,
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        NATS_URL: nats.url,
        DATABASE_URL: db.url,
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
        WDS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WDS_BROWSER_PROCESSES: '1',
        // The stack's own browser-pool takes no sessions (it still reaps lost replicas' sessions).
        WDS_BROWSER_SESSIONS: '0',
        WDS_SESSION_REPLICA_TIMEOUT_MS: String(REPLICA_TIMEOUT_MS),
      },
    });
    stack = e2e.stack;
    startReplica('bp-scale-a', 230_000);
    startReplica('bp-scale-b', 240_000);
    await waitFor(
      'both replicas',
      async () =>
        (
          await query<{ n: number }>(
            "SELECT count(*)::int AS n FROM browser_pool.session_replicas WHERE id LIKE 'bp-scale-%'",
          )
        )[0].n === 2,
      60_000,
    );
  }, READY_TIMEOUT_MS + 90_000);

  afterAll(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await e2e?.stop();
    await db?.drop().catch(() => undefined);
    await nats?.stop();
    if (natsDir) fs.rmSync(natsDir, { recursive: true, force: true });
    await site?.close();
  }, 60_000);

  it('spreads sessions over the replicas, routes calls, drains on SIGTERM and ends a dead replica’s sessions', async () => {
    const team = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: 'scale', credits: 1000, limits: { maxBrowserSessions: 10, maxConcurrency: 10 } },
    });
    const key = team.body.apiKey as string;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      // Recorded: a recording must outlive its replica (drained or killed) and end as a video.
      const created = await call('POST', '/v2/browser', { ttl: 120, recordSession: true }, key);
      expect(created.status).toBe(200);
      ids.push(created.body.id);
    }
    // Two slots per replica: the fifth finds no room anywhere.
    const full = await call('POST', '/v2/browser', { ttl: 120 }, key);
    expect(full.status).toBe(429);
    expect(full.body.error).toMatch(/session capacity/);

    const placed = await query<{ id: string; replica_id: string }>(
      'SELECT id, replica_id FROM browser_pool.sessions WHERE id = ANY($1::uuid[])',
      [ids],
    );
    const byReplica = new Map<string, string[]>();
    for (const p of placed) byReplica.set(p.replica_id, [...(byReplica.get(p.replica_id) ?? []), p.id]);
    expect([...byReplica.keys()].sort()).toEqual(['bp-scale-a', 'bp-scale-b']);
    expect(byReplica.get('bp-scale-a')).toHaveLength(2);

    // Every call reaches the replica holding the session's browser.
    for (const id of ids) {
      const r = await call(
        'POST',
        `/v2/browser/${id}/execute`,
        { code: `await page.goto('${site.url}/${id}'); page.url()` },
        key,
      );
      expect({ status: r.status, body: r.body }).toMatchObject({
        status: 200,
        body: { result: `${site.url}/${id}`, exitCode: 0 },
      });
    }

    // SIGTERM: replica a ends its sessions (drained) and bills them before it exits.
    const a = replicas[0];
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    const drained = await query<{
      status: string;
      end_reason: string;
      credits_billed: number;
      billed_at: Date | null;
    }>(
      'SELECT status, end_reason, credits_billed, billed_at FROM browser_pool.sessions WHERE id = ANY($1::uuid[])',
      [byReplica.get('bp-scale-a')],
    );
    for (const d of drained) {
      expect(d).toMatchObject({ status: 'destroyed', end_reason: 'drained', credits_billed: 2 });
      expect(d.billed_at).not.toBeNull();
    }
    for (const id of byReplica.get('bp-scale-a')!) {
      expect((await call('POST', `/v2/browser/${id}/execute`, { code: '1' }, key)).status).toBe(410);
    }
    // Replica b still serves its own.
    for (const id of byReplica.get('bp-scale-b')!) {
      const r = await call('POST', `/v2/browser/${id}/execute`, { code: '1 + 1' }, key);
      expect({ status: r.status, body: r.body }).toMatchObject({ status: 200, body: { result: '2' } });
    }

    // Each of b's recordings has stored a segment (a positive barrier) before b is killed.
    for (const id of byReplica.get('bp-scale-b')!) {
      await waitFor(`a stored segment of ${id}'s recording`, async () => {
        const r = await fetch(`${stack.url}/v2/browser/${id}/replay`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return r.status === 200 && (await r.text()).includes('.ts');
      });
    }

    // SIGKILL: replica b dies without a word; after its heartbeat goes stale the stack's replica
    // ends its sessions at b's last heartbeat and bills them.
    const b = replicas[1];
    b.child.kill('SIGKILL');
    await b.exited;
    await waitFor('the lost replica’s sessions to end', async () => {
      const rows = await query<{ n: number }>(
        "SELECT count(*)::int AS n FROM browser_pool.sessions WHERE id = ANY($1::uuid[]) AND status = 'destroyed' AND billed_at IS NOT NULL",
        [byReplica.get('bp-scale-b')],
      );
      return rows[0].n === 2;
    });
    const lost = await query<{ end_reason: string; credits_billed: number }>(
      'SELECT end_reason, credits_billed FROM browser_pool.sessions WHERE id = ANY($1::uuid[])',
      [byReplica.get('bp-scale-b')],
    );
    expect(lost).toEqual([
      { end_reason: 'replica-lost', credits_billed: 2 },
      { end_reason: 'replica-lost', credits_billed: 2 },
    ]);
    for (const id of byReplica.get('bp-scale-b')!) {
      expect((await call('POST', `/v2/browser/${id}/execute`, { code: '1' }, key)).status).toBe(410);
    }
    // Every recording is a complete video: drained ones ended by their replica, the lost replica's
    // ended by the one that reaped its sessions (at the last segment b stored).
    for (const id of ids) {
      const r = await fetch(`${stack.url}/v2/browser/${id}/replay`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(r.status).toBe(200);
      const playlist = await r.text();
      expect(playlist).toContain('#EXT-X-ENDLIST');
      const first = playlist.split('\n').find((l) => l.endsWith('.ts'));
      expect(first).toBeDefined();
      expect((await fetch(first!)).status).toBe(200);
    }
    // Four sessions of one minute each: 8 credits charged, every hold settled.
    const balance = await callApi(stack.url, 'POST', `/admin/v1/teams/${team.body.teamId}/credits`, {
      key: ADMIN_TOKEN,
      body: { amount: 1, reason: 'e2e balance probe' },
    });
    expect(balance.body.balance - 1).toBe(1000 - 8);
  }, 180_000);
});
