import { randomUUID } from 'node:crypto';
import {
  CRAWL_RPC,
  RPC,
  type CrawlCreateRequest,
  type Document,
  type ScrapeRunRequest,
} from '@wds/contracts';
import { call, serveBilling, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-features-0123456789';
const URL_ = 'https://example.com/';

/**
 * PUT /admin/v1/teams/{teamId}/features: the operator (support, in a self-hosted deployment)
 * enables the enterprise crawl options and zero data retention of api-v2.md for a team.
 */
describe('gateway: team features through the admin API', () => {
  let stack: TestStack;
  /** Admin API enabled. */
  let a: TestGateway;
  /** Second replica on the same database and NATS, admin API disabled. */
  let b: TestGateway;
  /** What reached the crawler and scraper stand-ins, i.e. got past the gateway's checks. */
  const crawls: CrawlCreateRequest[] = [];
  const scrapes: ScrapeRunRequest[] = [];

  beforeAll(async () => {
    stack = await startStack();
    serveBilling(stack);
    stack.messaging.serve(CRAWL_RPC.create, async (req) => {
      crawls.push(req);
      return { id: req.crawlId };
    });
    stack.messaging.serve(RPC.scrapeRun, async (req) => {
      scrapes.push(req);
      const document: Document = {
        markdown: '# A page',
        metadata: {
          sourceURL: req.options.url,
          statusCode: 200,
          scrapeId: req.jobId,
          creditsUsed: 1,
        } as Document['metadata'],
      };
      return { document, creditsUsed: 1, cacheHit: false };
    });
    [a, b] = await Promise.all([startGateway(stack, { WDS_ADMIN_TOKEN: ADMIN }), startGateway(stack)]);
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await stack?.stop();
  });

  const createTeam = async (json: Record<string, unknown> = {}) => {
    const res = await call(a.url, 'POST', '/admin/v1/teams', {
      token: ADMIN,
      json: { name: `features-${randomUUID()}`, credits: 1000, ...json },
    });
    expect(res.status).toBe(201);
    return res.body as { teamId: string; apiKey: string };
  };
  const setFeatures = (teamId: string, json: unknown) =>
    call(a.url, 'PUT', `/admin/v1/teams/${teamId}/features`, { token: ADMIN, json });
  const crawl = (gw: TestGateway, key: string, options: Record<string, unknown>) =>
    call(gw.url, 'POST', '/v2/crawl', { token: key, json: { url: URL_, ...options } });
  const scrape = (gw: TestGateway, key: string) =>
    call(gw.url, 'POST', '/v2/scrape', { token: key, json: { url: URL_, zeroDataRetention: true } });

  const refusedEnterprise = async (gw: TestGateway, key: string) => {
    for (const options of [{ ignoreRobotsTxt: true }, { robotsUserAgent: 'AcmeBot/1.0' }]) {
      const res = await crawl(gw, key, options);
      expect(res).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN' } });
      expect(res.body.error).toContain('enterprise');
    }
  };
  const refusedZdr = async (gw: TestGateway, key: string) => {
    for (const res of [await crawl(gw, key, { zeroDataRetention: true }), await scrape(gw, key)]) {
      expect(res).toMatchObject({ status: 403, body: { success: false, code: 'FORBIDDEN' } });
      expect(res.body.error).toContain('Zero data retention');
    }
  };
  /** The crawl got past the gateway's checks: the crawler was asked, with the option, for this team. */
  const crawlAccepted = async (
    gw: TestGateway,
    key: string,
    teamId: string,
    options: Record<string, unknown>,
  ) => {
    const before = crawls.length;
    const res = await crawl(gw, key, options);
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    expect(crawls).toHaveLength(before + 1);
    expect(crawls[before]).toMatchObject({ teamId, crawlId: res.body.id, request: options });
  };
  const scrapeAccepted = async (gw: TestGateway, key: string, teamId: string) => {
    const before = scrapes.length;
    const res = await scrape(gw, key);
    expect(res).toMatchObject({ status: 200, body: { success: true, data: { markdown: '# A page' } } });
    expect(scrapes).toHaveLength(before + 1);
    expect(scrapes[before]).toMatchObject({ teamId, zeroDataRetention: true });
  };

  it('refuses the options by default, then applies each change on both replicas at once', async () => {
    const { teamId, apiKey } = await createTeam();
    const flags = await a.running.database.query(
      'SELECT enterprise, zero_data_retention_enabled FROM gateway.teams WHERE id = $1',
      [teamId],
    );
    expect(flags.rows[0]).toEqual({ enterprise: false, zero_data_retention_enabled: false });
    // Both replicas authenticate the key (and cache the team without the flags) and refuse.
    for (const gw of [a, b]) {
      await refusedEnterprise(gw, apiKey);
      await refusedZdr(gw, apiKey);
    }
    expect(crawls.filter((c) => c.teamId === teamId)).toEqual([]);
    expect(scrapes.filter((s) => s.teamId === teamId)).toEqual([]);

    // Enterprise only: zero data retention stays off.
    expect(await setFeatures(teamId, { enterprise: true })).toMatchObject({
      status: 200,
      body: { success: true, enterprise: true, zeroDataRetention: false },
    });
    for (const gw of [a, b]) {
      await crawlAccepted(gw, apiKey, teamId, { ignoreRobotsTxt: true });
      await crawlAccepted(gw, apiKey, teamId, { robotsUserAgent: 'AcmeBot/1.0' });
      await refusedZdr(gw, apiKey);
    }

    // Both, as the route's body allows.
    expect(await setFeatures(teamId, { enterprise: true, zeroDataRetention: true })).toMatchObject({
      status: 200,
      body: { success: true, enterprise: true, zeroDataRetention: true },
    });
    for (const gw of [a, b]) {
      await crawlAccepted(gw, apiKey, teamId, { zeroDataRetention: true, ignoreRobotsTxt: true });
      await scrapeAccepted(gw, apiKey, teamId);
    }

    // And off again.
    expect(await setFeatures(teamId, { enterprise: false })).toMatchObject({
      status: 200,
      body: { success: true, enterprise: false, zeroDataRetention: true },
    });
    for (const gw of [a, b]) {
      await refusedEnterprise(gw, apiKey);
      await scrapeAccepted(gw, apiKey, teamId);
    }
    const after = await a.running.database.query(
      'SELECT enterprise, zero_data_retention_enabled FROM gateway.teams WHERE id = $1',
      [teamId],
    );
    expect(after.rows[0]).toEqual({ enterprise: false, zero_data_retention_enabled: true });
  });

  it('creates a team with its features', async () => {
    const { teamId, apiKey } = await createTeam({ enterprise: true, zeroDataRetention: true });
    await crawlAccepted(b, apiKey, teamId, { ignoreRobotsTxt: true, zeroDataRetention: true });
    await scrapeAccepted(a, apiKey, teamId);
    const enterpriseOnly = await createTeam({ enterprise: true });
    await crawlAccepted(a, enterpriseOnly.apiKey, enterpriseOnly.teamId, { ignoreRobotsTxt: true });
    await refusedZdr(a, enterpriseOnly.apiKey);
  });

  it('answers 400 in the envelope for a bad body and changes nothing', async () => {
    const { teamId, apiKey } = await createTeam();
    for (const [json, names] of [
      [{}, 'At least one of enterprise or zeroDataRetention'],
      [{ enterprise: 'yes' }, 'enterprise'],
      [{ zeroDataRetention: 1 }, 'zeroDataRetention'],
      [{ enterprise: true, zdr: true }, 'zdr'],
      [[true], ''],
    ] as const) {
      const res = await setFeatures(teamId, json);
      expect(res).toMatchObject({ status: 400, body: { success: false, code: 'BAD_REQUEST' } });
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error).toContain(names);
    }
    const empty = await call(a.url, 'PUT', `/admin/v1/teams/${teamId}/features`, { token: ADMIN });
    expect(empty).toMatchObject({ status: 400, body: { success: false, code: 'BAD_REQUEST' } });
    const bad = await call(a.url, 'POST', '/admin/v1/teams', {
      token: ADMIN,
      json: { name: 'x', enterprise: 'yes' },
    });
    expect(bad).toMatchObject({ status: 400, body: { success: false, code: 'BAD_REQUEST' } });
    expect(bad.body.error).toContain('enterprise');
    await refusedEnterprise(a, apiKey);
    await refusedZdr(a, apiKey);
  });

  it('answers 404 for an unknown team, and per the admin guard without the admin token', async () => {
    for (const teamId of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expect(await setFeatures(teamId, { enterprise: true })).toMatchObject({
        status: 404,
        body: { success: false, code: 'NOT_FOUND' },
      });
    }
    const { teamId } = await createTeam();
    const path = `/admin/v1/teams/${teamId}/features`;
    const json = { enterprise: true };
    expect(await call(a.url, 'PUT', path, { json })).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    });
    expect(await call(a.url, 'PUT', path, { token: 'not-the-admin-token', json })).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN' },
    });
    // The replica without WDS_ADMIN_TOKEN has no admin API.
    expect(await call(b.url, 'PUT', path, { token: ADMIN, json })).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
    const flags = await a.running.database.query('SELECT enterprise FROM gateway.teams WHERE id = $1', [
      teamId,
    ]);
    expect(flags.rows[0]).toEqual({ enterprise: false });
  });
});
