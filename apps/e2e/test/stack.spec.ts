import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { SERVICE_KINDS } from '@wds/contracts';
import { freePort } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { FIXTURE_TEXT, startFixtureSite, type FixtureSite } from '@wds/testing';
import { callApi } from './support/http';
import { StackProcess, isAlive, killMarked, markedProcesses } from './support/stack-process';

// The whole stack booted exactly as `npm start` boots it (tools/stack/start.js), driven over HTTP.
// The test runner builds everything first; this suite only starts the built services.

const READY_TIMEOUT_MS = 90_000;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const BOOTSTRAP_KEY = `e2e-bootstrap-${randomBytes(16).toString('hex')}`;

interface Envelope {
  success: false;
  error: string;
  code?: string;
}

function expectEnvelope(body: unknown): asserts body is Envelope {
  expect(body).toEqual(expect.objectContaining({ success: false, error: expect.any(String) }));
}

describe('the stack started by `npm start`', () => {
  const mark = randomBytes(8).toString('hex');
  let dataDir: string;
  let site: FixtureSite;
  let stack: StackProcess;
  let postmasterPid: number | undefined;
  let createdTeam: { teamId: string; apiKey: string };

  const boot = async () => {
    const s = new StackProcess({
      dataDir,
      port: await freePort(),
      mark,
      env: {
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
        // npm start's own SearXNG for web search (its packaged engines ask the public internet).
        WDS_LOCAL_SEARXNG: 'true',
      },
    });
    await s.ready(READY_TIMEOUT_MS);
    return s;
  };
  const call = (
    s: StackProcess,
    method: string,
    route: string,
    opts: { key?: string; body?: unknown } = {},
  ) => callApi(s.url, method, route, opts);

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-e2e-'));
    site = await startFixtureSite();
    stack = await boot();
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    postmasterPid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) || undefined;
  }, READY_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await stack?.kill();
    killMarked(mark);
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('reports every service kind alive on /health', async () => {
    const { status, body } = await call(stack, 'GET', '/health');
    expect(status).toBe(200);
    for (const kind of SERVICE_KINDS) expect(body.services[kind]).toBeGreaterThanOrEqual(1);
  });

  it('prints the bootstrap team id', () => {
    expect(stack.team).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('serves an OpenAPI 3.1 document', async () => {
    const { status, body } = await call(stack, 'GET', '/v2/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/v2/scrape', '/v2/crawl']));
  });

  it('refuses /v2 without a key with the error envelope and accepts the bootstrap key', async () => {
    const anonymous = await call(stack, 'GET', '/v2/crawl/active');
    expect(anonymous.status).toBe(401);
    expectEnvelope(anonymous.body);
    const wrong = await call(stack, 'GET', '/v2/crawl/active', { key: 'wds_aaaaaaaaaaaa_not-a-real-key' });
    expect(wrong.status).toBe(401);

    const authed = await call(stack, 'GET', '/v2/crawl/active', { key: BOOTSTRAP_KEY });
    expect(authed.status).toBe(200);
    expect(authed.body).toEqual({ success: true, crawls: expect.any(Array) });
  });

  it('answers a question about the platform from its docs, with citations (docs search)', async () => {
    const { status, body } = await call(stack, 'POST', '/v2/support/docs-search', {
      key: BOOTSTRAP_KEY,
      body: { question: 'How often is a failed webhook delivery retried?' },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, answer: expect.any(String), durationMs: expect.any(Number) });
    expect(body.requestId).toEqual(expect.any(String));
    expect(body.evidence.length).toBeGreaterThan(0);
    expect(body.evidence.map((e: { pathOrUrl: string }) => e.pathOrUrl)).toContain(
      'docs/webhooks.md#retry-schedule',
    );
    for (const e of body.evidence) expect(e.reason).toEqual(expect.any(String));
    expect(body.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    });
    const empty = await call(stack, 'POST', '/v2/support/docs-search', {
      key: BOOTSTRAP_KEY,
      body: { question: ' ' },
    });
    expect(empty.status).toBe(400);
    expectEnvelope(empty.body);
  });

  it('scrapes a page of the fixture site end to end over HTTP', async () => {
    const { status, body } = await call(stack, 'POST', '/v2/scrape', {
      key: BOOTSTRAP_KEY,
      body: { url: `${site.url}/article`, formats: ['markdown', 'links'] },
    });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.markdown).toContain(FIXTURE_TEXT.articleTitle);
    expect(body.data.metadata.statusCode).toBe(200);
    expect(body.data.metadata.sourceURL).toBe(`${site.url}/article`);
    expect(Array.isArray(body.data.links)).toBe(true);
    const again = await call(stack, 'GET', `/v2/scrape/${body.data.metadata.scrapeId}`, {
      key: BOOTSTRAP_KEY,
    });
    expect(again.status).toBe(200);
    expect(again.body.data.markdown).toBe(body.data.markdown);
  }, 60_000);

  it("answers repeated hits from the gateway's hot copy, each stored as its own scrape", async () => {
    const url = `${site.url}/article?hot=${Date.now()}`;
    const scrape = async () => {
      const res = await call(stack, 'POST', '/v2/scrape', { key: BOOTSTRAP_KEY, body: { url } });
      expect(res.status).toBe(200);
      return res.body.data;
    };
    const first = await scrape();
    expect(first.metadata.cacheState).toBe('miss');
    const hits = [await scrape(), await scrape(), await scrape()];
    for (const hit of hits) {
      expect(hit.metadata).toMatchObject({ cacheState: 'hit', creditsUsed: 1, sourceURL: url });
      expect(hit.markdown).toBe(first.markdown);
      const stored = await call(stack, 'GET', `/v2/scrape/${hit.metadata.scrapeId}`, { key: BOOTSTRAP_KEY });
      expect(stored.status).toBe(200);
      expect(stored.body.data).toEqual(hit);
    }
    expect(new Set(hits.map((h) => h.metadata.scrapeId)).size).toBe(3);
  }, 60_000);

  it('serves the official Firecrawl JS SDK (scrape)', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: BOOTSTRAP_KEY, apiUrl: stack.url });
    const doc = await client.scrape(`${site.url}/article`, { formats: ['markdown', 'html'], maxAge: 0 });
    expect(doc.markdown).toContain(FIXTURE_TEXT.articleTitle);
    expect(doc.html).toContain('<');
    expect(doc.metadata?.statusCode).toBe(200);
    expect(doc.metadata?.scrapeId).toEqual(expect.any(String));
    // A failure comes back as the SDK's own error carrying our status and message.
    await expect(client.scrape(`${site.url}/article`, { formats: ['summary'] })).rejects.toThrow(/summary/i);
    // Web search through npm start's local SearXNG and its public engines: results where this
    // machine reaches them, else an answer naming the engines that did not answer (never an error).
    const found = await client.search('kettles', { limit: 3 });
    expect(Array.isArray(found.web)).toBe(true);
    if (found.web!.length === 0) {
      expect(found.warning).toMatch(/engines that did not answer: .*(duckduckgo|brave|bing|wikipedia)/);
    } else {
      expect(found.web![0]).toEqual(
        expect.objectContaining({ url: expect.stringMatching(/^https?:/), position: 1 }),
      );
    }
  }, 60_000);

  it('creates a team through the admin API whose key works', async () => {
    const noToken = await call(stack, 'POST', '/admin/v1/teams', { body: { name: 'e2e' } });
    expect([401, 403]).toContain(noToken.status);
    expectEnvelope(noToken.body);
    const withApiKey = await call(stack, 'POST', '/admin/v1/teams', {
      key: BOOTSTRAP_KEY,
      body: { name: 'e2e' },
    });
    expect([401, 403]).toContain(withApiKey.status);

    const created = await call(stack, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: 'e2e-team', credits: 500 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ teamId: expect.any(String), apiKey: expect.any(String) });
    createdTeam = created.body;
    const used = await call(stack, 'GET', '/v2/crawl/active', { key: createdTeam.apiKey });
    expect(used.status).toBe(200); // authenticated
  });

  it("keeps its NATS and PostgreSQL to itself: both refuse a client without the data directory's secrets", async () => {
    const secrets = path.join(dataDir, 'secrets');
    expect(fs.statSync(secrets).mode & 0o777).toBe(0o700);
    for (const name of ['nats-token', 'postgres-password']) {
      expect(fs.statSync(path.join(secrets, name)).mode & 0o777).toBe(0o600);
    }
    const logger = createLogger({ service: 'e2e-stack', level: 'silent' });
    expect(stack.natsPort).toEqual(expect.any(Number));
    await expect(
      Messaging.connect({ servers: `nats://127.0.0.1:${stack.natsPort}`, name: 'e2e-intruder', logger }),
    ).rejects.toThrow(/authorization/i);
    const token = fs.readFileSync(path.join(secrets, 'nats-token'), 'utf8').trim();
    const own = await Messaging.connect({
      servers: `nats://${token}@127.0.0.1:${stack.natsPort}`,
      name: 'e2e-own',
      logger,
    });
    await own.drain();

    // The password every local stack used to share is refused; the stack's own is accepted.
    const shared = new Client({ connectionString: `postgres://wds:wds@127.0.0.1:${stack.postgresPort}/wds` });
    await expect(shared.connect()).rejects.toMatchObject({ code: '28P01' });
    await shared.end().catch(() => undefined);
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      // Back to the shared password, as a cluster from before stacks had their own: the next start
      // ('reuses the data on the next start') must move it to a new password of its own.
      await db.query(`ALTER ROLE CURRENT_USER PASSWORD 'wds'`);
    } finally {
      await db.end();
    }
    fs.rmSync(path.join(secrets, 'postgres-password'));
  });

  it('stops cleanly on SIGINT and leaves no process behind', async () => {
    const pids = [...stack.pids];
    expect(pids.length).toBeGreaterThanOrEqual(SERVICE_KINDS.length + 2);
    const { code, ms } = await stack.stop('SIGINT', 30_000);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(30_000);
    expect(pids.filter(isAlive)).toEqual([]);
    if (postmasterPid) expect(isAlive(postmasterPid)).toBe(false);
    expect(markedProcesses(mark)).toEqual([]);
  }, 40_000);

  it(
    'reuses the data on the next start',
    async () => {
      const firstTeam = stack.team;
      stack = await boot();
      expect(stack.team).toBe(firstTeam);
      const used = await call(stack, 'GET', '/v2/crawl/active', { key: createdTeam.apiKey });
      expect(used.status).not.toBe(401);
      // The cluster left on the shared password has a password of its own again.
      const shared = new Client({
        connectionString: `postgres://wds:wds@127.0.0.1:${stack.postgresPort}/wds`,
      });
      await expect(shared.connect()).rejects.toMatchObject({ code: '28P01' });
      await shared.end().catch(() => undefined);
      const db = new Client({ connectionString: stack.databaseUrl });
      await db.connect();
      await db.end();
      const { code } = await stack.stop('SIGTERM', 30_000);
      expect(code).toBe(0);
      expect(markedProcesses(mark)).toEqual([]);
    },
    READY_TIMEOUT_MS + 40_000,
  );

  it(
    'leaves no process behind when the supervisor itself is killed (SIGKILL), and starts again on its data',
    async () => {
      stack = await boot();
      const pids = [...stack.pids];
      expect(pids.length).toBeGreaterThanOrEqual(SERVICE_KINDS.length + 2);
      await stack.kill();
      // Each child gets its parent-death signal (setpriv --pdeathsig): services and NATS stop
      // gracefully (SIGTERM), PostgreSQL with a fast shutdown (SIGINT).
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && markedProcesses(mark).length > 0) {
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(markedProcesses(mark)).toEqual([]);
      expect(pids.filter(isAlive)).toEqual([]);
      // No PostgreSQL left on the data directory: the next start is not refused.
      stack = await boot();
      const { code } = await stack.stop('SIGTERM', 30_000);
      expect(code).toBe(0);
    },
    2 * READY_TIMEOUT_MS + 70_000,
  );
});
