import { CRAWL_RPC, SERVICE_KINDS } from '@wds/contracts';
import { registerInstance } from '@wds/service-kit';
import type { Service } from '@nats-io/services';
import { ConcurrencyLimiter } from '../src/limits/concurrency-limiter';
import {
  endpointName,
  notImplementedMessage,
  pendingRoutes,
} from '../src/pending-routes/not-implemented.routes';
import { BillingStandIn, call, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-tests-0123456789';
const KEY = 'surface-suite-bootstrap-key';

describe('gateway HTTP surface', () => {
  let stack: TestStack;
  let gw: TestGateway;

  beforeAll(async () => {
    stack = await startStack();
    new BillingStandIn(stack.messaging);
    // GET /v2/crawl/active is the authenticated route these tests probe; a crawler stand-in answers it.
    stack.messaging.serve(CRAWL_RPC.active, async () => ({ jobs: [] }));
    gw = await startGateway(stack, { WDS_ADMIN_TOKEN: ADMIN, WDS_BOOTSTRAP_API_KEY: KEY });
  });

  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });

  async function newTeam(limits: Record<string, number> = {}): Promise<{ teamId: string; apiKey: string }> {
    const res = await call(gw.url, 'POST', '/admin/v1/teams', {
      token: ADMIN,
      json: { name: 'limits', limits },
    });
    expect(res.status).toBe(201);
    return res.body;
  }

  describe('error envelope', () => {
    it('answers malformed JSON with 400', async () => {
      const res = await call(gw.url, 'POST', '/v2/scrape', { token: KEY, raw: '{"url": ' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('answers a non-JSON content type with 415 in the envelope', async () => {
      const res = await call(gw.url, 'POST', '/v2/scrape', {
        token: KEY,
        raw: 'url=x',
        contentType: 'text/plain',
      });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ success: false });
    });

    it('names an unknown body key and accepts the SDK labels', async () => {
      const bad = await call(gw.url, 'POST', '/v2/scrape', {
        token: KEY,
        json: { url: 'https://example.com', onlyMainContnet: true },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
      expect(bad.body.error).toContain('onlyMainContnet');
      const invalid = await call(gw.url, 'POST', '/v2/scrape', {
        token: KEY,
        json: { url: 'https://example.com', timeout: 5 },
      });
      expect(invalid.body.error).toContain('timeout');

      // params-preview validates its body, then answers 400 (no LLM provider configured in this
      // gateway): reaching that proves the labels passed.
      const labelled = await call(gw.url, 'POST', '/v2/crawl/params-preview', {
        token: KEY,
        json: { url: 'https://example.com', prompt: 'docs', origin: 'js-sdk@4', integration: 'test' },
      });
      expect(labelled.status).toBe(400);
      expect(labelled.body.error).toMatch(/no LLM provider is configured/);
    });

    it('answers unknown routes with 404 in the envelope', async () => {
      const res = await call(gw.url, 'GET', '/v2/nope', { token: KEY });
      expect(res).toMatchObject({ status: 404, body: { success: false, code: 'NOT_FOUND' } });
      expect((await call(gw.url, 'GET', '/elsewhere')).body).toMatchObject({
        success: false,
        code: 'NOT_FOUND',
      });
    });
  });

  it('routes every pending endpoint and answers 501 after authentication', async () => {
    const ID = '3f1a0b9e-8f5c-4d1e-9a7b-2c3d4e5f6a7b';
    // Per-page replays are among them, saying what exists instead.
    expect(pendingRoutes().map(endpointName)).toEqual(
      expect.arrayContaining(['GET /v2/browser/{sessionId}/replay/{pageId}']),
    );
    expect(notImplementedMessage(pendingRoutes()[0])).toMatch(
      /Per-page recordings are not built.*\/replay\)$/,
    );
    for (const route of pendingRoutes()) {
      const path = route.path.replace(/\{[^}]+\}/g, ID);
      const method = route.method.toUpperCase();
      const unauth = await call(gw.url, method, path, route.method === 'post' ? { json: {} } : {});
      expect([endpointName(route), unauth.status]).toEqual([endpointName(route), 401]);
      const res = await call(gw.url, method, path, route.body ? { token: KEY, json: {} } : { token: KEY });
      // An empty body fails validation where the schema needs fields; otherwise the route answers 501.
      if (res.status === 400) {
        expect(res.body.code).toBe('BAD_REQUEST');
      } else {
        expect([endpointName(route), res.status, res.body]).toEqual([
          endpointName(route),
          501,
          { success: false, error: notImplementedMessage(route), code: 'NOT_IMPLEMENTED' },
        ]);
      }
    }
    // Search (both SDKs' `search`) without WDS_SEARXNG_URL: its body is checked, then a 501 says
    // what is missing and what to use instead.
    const noQuery = await call(gw.url, 'POST', '/v2/search', { token: KEY, json: { limit: 3 } });
    expect(noQuery).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    const customRange = await call(gw.url, 'POST', '/v2/search', {
      token: KEY,
      json: { query: 'kettles', tbs: 'cdr:1,cd_min:1/1/2024' },
    });
    expect(customRange).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify(customRange.body)).toMatch(/custom date ranges/);
    const search = await call(gw.url, 'POST', '/v2/search', {
      token: KEY,
      json: { query: 'kettles', limit: 3, sources: ['web'] },
    });
    expect(search).toMatchObject({ status: 501, body: { code: 'NOT_IMPLEMENTED' } });
    expect(search.body.error).toMatch(/^Web search is not configured.*WDS_SEARXNG_URL.*POST \/v2\/map/);
  });

  it('limits requests per minute with 429 and Retry-After', async () => {
    const { teamId, apiKey } = await newTeam({ requestsPerMinute: 3 });
    for (let i = 0; i < 3; i++)
      expect((await call(gw.url, 'GET', '/v2/crawl/active', { token: apiKey })).status).toBe(200);
    const limited = await call(gw.url, 'GET', '/v2/crawl/active', { token: apiKey });
    expect(limited).toMatchObject({ status: 429, body: { success: false, code: 'RATE_LIMITED' } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // A raised limit applies to the very next request.
    await call(gw.url, 'PUT', `/admin/v1/teams/${teamId}/limits`, {
      token: ADMIN,
      json: { requestsPerMinute: 10 },
    });
    expect((await call(gw.url, 'GET', '/v2/crawl/active', { token: apiKey })).status).toBe(200);
  });

  it('limits requests in flight across replicas with 429 CONCURRENCY_LIMITED', async () => {
    const { teamId, apiKey } = await newTeam({ maxConcurrency: 1 });
    // A request in flight elsewhere holds the team's only slot.
    const limiter = gw.running.app.get(ConcurrencyLimiter);
    const lease = await limiter.acquire(teamId, 1);
    expect(lease).toBeDefined();
    const limited = await call(gw.url, 'GET', '/v2/crawl/active', { token: apiKey });
    expect(limited).toMatchObject({ status: 429, body: { success: false, code: 'CONCURRENCY_LIMITED' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    await limiter.release(lease as string);
    const leases = async () =>
      (
        await gw.running.database.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM gateway.concurrency_leases WHERE team_id = $1',
          [teamId],
        )
      ).rows[0].n;
    // A finished request has given its slot back by the time its answer arrives: a client sending
    // one request after another never meets its own previous one, answered or refused.
    for (let i = 0; i < 20; i++) {
      expect((await call(gw.url, 'GET', '/v2/crawl/active', { token: apiKey })).status).toBe(200);
      expect(await leases()).toBe(0);
      expect((await call(gw.url, 'GET', '/v2/crawl/not-a-uuid', { token: apiKey })).status).toBe(400);
      expect(await leases()).toBe(0);
    }
  });

  it('frees the slots of a crashed replica once their leases expire', async () => {
    const { teamId, apiKey } = await newTeam({ maxConcurrency: 1 });
    await gw.running.database.query(
      "INSERT INTO gateway.concurrency_leases (id, team_id, expires_at) VALUES (gen_random_uuid(), $1, now() - interval '1 second')",
      [teamId],
    );
    expect((await call(gw.url, 'GET', '/v2/crawl/active', { token: apiKey })).status).toBe(200);
  });

  it('echoes a safe X-Request-Id and generates one otherwise', async () => {
    const echoed = await call(gw.url, 'GET', '/v2/crawl/active', {
      token: KEY,
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await call(gw.url, 'GET', '/health/live', {
      headers: { 'x-request-id': 'bad id<script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI document without authentication', async () => {
    const res = await call(gw.url, 'GET', '/v2/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toContain('/v2/scrape');
  });

  it('reports 503 naming missing service kinds until every kind has a live instance', async () => {
    const degraded = await call(gw.url, 'GET', '/health');
    expect(degraded.status).toBe(503);
    expect(degraded.body).toMatchObject({ status: 'degraded', nats: 'ok', database: 'ok' });
    expect(degraded.body.services.gateway).toBe(1);
    expect(degraded.body.missing).toEqual(SERVICE_KINDS.filter((k) => k !== 'gateway'));

    const fakes: Service[] = [];
    try {
      for (const kind of SERVICE_KINDS.filter((k) => k !== 'gateway')) {
        fakes.push(
          await registerInstance(stack.messaging, {
            kind,
            instanceId: `fake-${kind}`,
            version: '0.0.0',
            healthUrl: 'http://x',
          }),
        );
      }
      // Discovery is a broadcast: on a loaded machine an instance may miss one round, so allow a few.
      let healthy = await call(gw.url, 'GET', '/health');
      for (let i = 0; i < 5 && healthy.status !== 200; i++) healthy = await call(gw.url, 'GET', '/health');
      expect(healthy.status).toBe(200);
      expect(healthy.body).toMatchObject({ status: 'ok', missing: [] });
      for (const kind of SERVICE_KINDS) expect(healthy.body.services[kind]).toBeGreaterThanOrEqual(1);
    } finally {
      for (const f of fakes) await f.stop();
    }
    expect((await call(gw.url, 'GET', '/health/live')).status).toBe(200);
    expect((await call(gw.url, 'GET', '/health/ready')).status).toBe(200);
  });
});
