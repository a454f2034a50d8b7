import { CRAWL_RPC } from '@wds/contracts';
import { BillingStandIn, call, startGateway, startStack, type TestGateway, type TestStack } from './harness';
import { creationGrantKey } from '../src/bootstrap/ensure-bootstrap-team.usecase';
import { BootstrapTeamInitializer } from '../src/bootstrap/bootstrap-team.initializer';
import { lookupPrefix } from '../src/auth/api-key';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-tests-0123456789';
const BOOTSTRAP_KEY = 'operator-chosen-bootstrap-key';

describe('gateway auth, bootstrap team and admin API', () => {
  let stack: TestStack;
  let billing: BillingStandIn;
  /** Admin API enabled. */
  let a: TestGateway;
  /** Second replica on the same database and NATS, admin API disabled. */
  let b: TestGateway;

  beforeAll(async () => {
    stack = await startStack();
    billing = new BillingStandIn(stack.messaging);
    // GET /v2/crawl/active is the authenticated route these tests probe; a crawler stand-in answers it.
    stack.messaging.serve(CRAWL_RPC.active, async () => ({ jobs: [] }));
    const common = { WDS_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY, WDS_BOOTSTRAP_CREDITS: '250' };
    // Started together: the bootstrap must still create exactly one team.
    [a, b] = await Promise.all([
      startGateway(stack, { ...common, WDS_ADMIN_TOKEN: ADMIN, WDS_BOOTSTRAP_WEBHOOK_SECRET: 'whsec' }),
      startGateway(stack, common),
    ]);
    await a.running.app.get(BootstrapTeamInitializer).granted;
    await b.running.app.get(BootstrapTeamInitializer).granted;
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await stack?.stop();
  });

  describe('bootstrap team', () => {
    it('exists once, owns the key, and got its credits once', async () => {
      const { rows } = await a.running.database.query<{ id: string; name: string; webhook_secret: string }>(
        'SELECT id, name, webhook_secret FROM gateway.teams WHERE is_bootstrap',
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ name: 'bootstrap', webhook_secret: 'whsec' });
      const keys = await a.running.database.query('SELECT prefix FROM gateway.api_keys WHERE team_id = $1', [
        rows[0].id,
      ]);
      expect(keys.rows).toEqual([{ prefix: lookupPrefix(BOOTSTRAP_KEY) }]);
      expect([...billing.grants.keys()]).toEqual([creationGrantKey(rows[0].id)]);
      expect(billing.balance(rows[0].id)).toBe(250);
      // The plaintext key is stored nowhere.
      const dump = await a.running.database.query('SELECT row_to_json(k)::text AS j FROM gateway.api_keys k');
      expect(JSON.stringify(dump.rows)).not.toContain(BOOTSTRAP_KEY);
    });

    it('is reused by a later start', async () => {
      const c = await startGateway(stack, {
        WDS_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
        WDS_BOOTSTRAP_CREDITS: '250',
      });
      try {
        await c.running.app.get(BootstrapTeamInitializer).granted;
        const { rows } = await c.running.database.query(
          'SELECT count(*)::int AS n FROM gateway.teams WHERE is_bootstrap',
        );
        expect(rows[0].n).toBe(1);
        expect(billing.grants.size).toBe(1);
        expect((await call(c.url, 'GET', '/v2/crawl/active', { token: BOOTSTRAP_KEY })).status).toBe(200);
      } finally {
        await c.stop();
      }
    });
  });

  describe('API key authentication', () => {
    it.each([
      ['no header', {}],
      ['a malformed header', { headers: { authorization: 'Basic abc' } }],
      ['an unknown key', { token: 'wds_aaaaaaaaaaaa_' + 'A'.repeat(43) }],
      ['a key that is not the bootstrap key', { token: BOOTSTRAP_KEY + 'x' }],
    ])('answers 401 for %s', async (_name, opts) => {
      const res = await call(a.url, 'GET', '/v2/crawl/active', opts);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expect(typeof res.body.error).toBe('string');
    });

    it('lets the bootstrap key through to the route', async () => {
      const res = await call(a.url, 'GET', '/v2/crawl/active', { token: BOOTSTRAP_KEY });
      expect(res.status).toBe(200);
    });
  });

  describe('admin API', () => {
    it('creates a team with credits and limits, adds and revokes keys', async () => {
      const created = await call(a.url, 'POST', '/admin/v1/teams', {
        token: ADMIN,
        json: { name: 'acme', credits: 500, limits: { requestsPerMinute: 100 } },
      });
      expect(created.status).toBe(201);
      const { teamId, apiKey } = created.body;
      expect(apiKey).toMatch(/^wds_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
      expect(billing.grants.get(creationGrantKey(teamId))).toMatchObject({ teamId, amount: 500 });
      const team = await a.running.database.query(
        'SELECT requests_per_minute, max_concurrency FROM gateway.teams WHERE id = $1',
        [teamId],
      );
      expect(team.rows[0]).toEqual({ requests_per_minute: 100, max_concurrency: 50 });

      const second = await call(a.url, 'POST', `/admin/v1/teams/${teamId}/api-keys`, {
        token: ADMIN,
        json: { name: 'ci' },
      });
      expect(second.status).toBe(201);
      expect(second.body.apiKey).not.toBe(apiKey);
      expect((await call(a.url, 'GET', '/v2/crawl/active', { token: second.body.apiKey })).status).toBe(200);
      // Right prefix, wrong secret.
      const forged =
        second.body.apiKey.slice(0, -4) + (second.body.apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expect((await call(a.url, 'GET', '/v2/crawl/active', { token: forged })).status).toBe(401);

      const credits = await call(a.url, 'POST', `/admin/v1/teams/${teamId}/credits`, {
        token: ADMIN,
        json: { amount: 25, reason: 'goodwill' },
        headers: { 'idempotency-key': 'once' },
      });
      expect(credits).toMatchObject({ status: 200, body: { balance: 525 } });
      const again = await call(a.url, 'POST', `/admin/v1/teams/${teamId}/credits`, {
        token: ADMIN,
        json: { amount: 25, reason: 'goodwill' },
        headers: { 'idempotency-key': 'once' },
      });
      expect(again.body).toEqual({ balance: 525 });

      expect(
        await call(a.url, 'PUT', `/admin/v1/teams/${teamId}/limits`, {
          token: ADMIN,
          json: { maxConcurrency: 7 },
        }),
      ).toMatchObject({ status: 200, body: { success: true } });
      expect(
        await call(a.url, 'PUT', `/admin/v1/teams/${teamId}/webhook-secret`, {
          token: ADMIN,
          json: { secret: 's3' },
        }),
      ).toMatchObject({ status: 200, body: { success: true } });
      const updated = await a.running.database.query(
        'SELECT requests_per_minute, max_concurrency, webhook_secret FROM gateway.teams WHERE id = $1',
        [teamId],
      );
      expect(updated.rows[0]).toEqual({ requests_per_minute: 100, max_concurrency: 7, webhook_secret: 's3' });
    });

    it('validates bodies and unknown teams in the envelope', async () => {
      const bad = await call(a.url, 'POST', '/admin/v1/teams', {
        token: ADMIN,
        json: { name: 'x', credits: -1 },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
      expect(bad.body.error).toContain('credits');
      const typo = await call(a.url, 'POST', '/admin/v1/teams', {
        token: ADMIN,
        json: { name: 'x', credit: 1 },
      });
      expect(typo.body.error).toContain('credit');
      for (const teamId of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        const res = await call(a.url, 'PUT', `/admin/v1/teams/${teamId}/limits`, {
          token: ADMIN,
          json: { maxConcurrency: 2 },
        });
        expect(res).toMatchObject({ status: 404, body: { success: false, code: 'NOT_FOUND' } });
      }
      expect((await call(a.url, 'DELETE', '/admin/v1/api-keys/nosuchprefix', { token: ADMIN })).status).toBe(
        404,
      );
    });

    it('answers 401 without a token and 403 for a wrong token or an API key', async () => {
      expect((await call(a.url, 'POST', '/admin/v1/teams', { json: { name: 'x' } })).status).toBe(401);
      const wrong = await call(a.url, 'POST', '/admin/v1/teams', {
        token: 'not-the-admin-token',
        json: { name: 'x' },
      });
      expect(wrong).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN' } });
      expect(
        (await call(a.url, 'POST', '/admin/v1/teams', { token: BOOTSTRAP_KEY, json: { name: 'x' } })).status,
      ).toBe(403);
    });

    it('answers 404 on every admin path when WDS_ADMIN_TOKEN is unset', async () => {
      for (const [method, path] of [
        ['POST', '/admin/v1/teams'],
        ['DELETE', '/admin/v1/api-keys/abc'],
        ['PUT', '/admin/v1/teams/x/limits'],
      ]) {
        const res = await call(b.url, method, path, { token: ADMIN, json: {} });
        expect(res).toMatchObject({ status: 404, body: { success: false, code: 'NOT_FOUND' } });
      }
    });
  });

  it('revokes a key on every replica at once, although both had it cached', async () => {
    const { body } = await call(a.url, 'POST', '/admin/v1/teams', {
      token: ADMIN,
      json: { name: 'revoke-me' },
    });
    const key: string = body.apiKey;
    expect((await call(a.url, 'GET', '/v2/crawl/active', { token: key })).status).toBe(200);
    expect((await call(b.url, 'GET', '/v2/crawl/active', { token: key })).status).toBe(200);

    const revoked = await call(a.url, 'DELETE', `/admin/v1/api-keys/${lookupPrefix(key)}`, { token: ADMIN });
    expect(revoked).toMatchObject({ status: 200, body: { success: true } });
    for (const gw of [a, b]) {
      const res = await call(gw.url, 'GET', '/v2/crawl/active', { token: key });
      expect(res).toMatchObject({ status: 401, body: { success: false, code: 'UNAUTHORIZED' } });
    }
  });
});
