import { randomBytes } from 'node:crypto';
import { freePort } from '@wds/local-infra';
import { startFixtureSite, type FixtureSite } from '@wds/testing';
import { callApi } from './support/http';
import { pythonSdk } from './support/python-sdk';
import { startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// Team activity, usage and queue through the whole stack (`npm start`): every billable call on
// record once (billing, fed by the services' activity events), paging while new activity arrives,
// retrieval of listed ids by their team only, credits/tokens per month and API key with both
// official SDKs, the live queue, bad input, and the admin API's reads of any team.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-usage-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('team activity and usage through the stack', () => {
  let e2e: E2eStack | undefined;
  let site: FixtureSite;
  let stack: StackProcess;

  const call = (method: string, route: string, key: string, body?: unknown) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 60_000 });

  /** A team of the admin API with generous limits; returns its id and API key. */
  const adminTeam = async (opts: { zdr?: boolean; credits?: number; maxConcurrency?: number } = {}) => {
    const created = await call('POST', '/admin/v1/teams', ADMIN_TOKEN, {
      name: `usage-${randomBytes(4).toString('hex')}`,
      credits: opts.credits ?? 100_000,
      limits: { requestsPerMinute: 10_000, maxConcurrency: opts.maxConcurrency ?? 40 },
      zeroDataRetention: opts.zdr ?? false,
    });
    expect(created.status).toBe(201);
    return { teamId: created.body.teamId as string, key: created.body.apiKey as string };
  };

  /** Every item of the team's activity, paging with `limit`; `between` runs before each next page. */
  const listAll = async (key: string, limit: number, between?: () => Promise<void>, query = '') => {
    const items: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = `limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call('GET', `/v2/team/activity?${qs}`, key);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ success: true, has_more: expect.any(Boolean) });
      expect(page.body.data.length).toBeLessThanOrEqual(limit);
      items.push(...page.body.data);
      cursor = page.body.cursor;
      expect(page.body.has_more).toBe(cursor !== null);
      pages++;
      if (cursor && between) await between();
    } while (cursor);
    return { items, pages };
  };

  const waitForActivity = async (key: string, count: number, timeoutMs = 60_000) => {
    for (const end = Date.now() + timeoutMs; ;) {
      const { items } = await listAll(key, 100);
      if (items.length >= count) return items;
      if (Date.now() > end) throw new Error(`only ${items.length} of ${count} activity items`);
      await sleep(250);
    }
  };

  beforeAll(async () => {
    site = await startFixtureSite();
    e2e = await startE2eStack({
      name: 'usage',
      port: await freePort(),
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 20_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
  }, 30_000);

  it('records every billable call once, newest first, each id readable by its team only', async () => {
    const team = await adminTeam();
    const other = await adminTeam();
    const scrape = await call('POST', '/v2/scrape', team.key, {
      url: `${site.url}/article`,
      formats: ['markdown'],
    });
    expect(scrape.status).toBe(200);
    // The same page again: a cache hit (the gateway answers the repeats from its hot copy).
    const hits = [];
    for (let i = 0; i < 3; i++) {
      const hit = await call('POST', '/v2/scrape', team.key, {
        url: `${site.url}/article`,
        formats: ['markdown'],
      });
      expect(hit.body.data.metadata.cacheState).toBe('hit');
      hits.push(hit.body.data.metadata.scrapeId as string);
    }
    const crawl = await call('POST', '/v2/crawl', team.key, {
      url: `${site.url}/docs`,
      limit: 2,
      sitemap: 'skip',
    });
    const batch = await call('POST', '/v2/batch/scrape', team.key, { urls: [`${site.url}/meta`] });
    const map = await call('POST', '/v2/map', team.key, { url: site.url, limit: 5 });
    expect([crawl.status, batch.status, map.status]).toEqual([200, 200, 200]);

    const items = await waitForActivity(team.key, 7);
    expect(items).toHaveLength(7);
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(byId.get(scrape.body.data.metadata.scrapeId)).toMatchObject({
      endpoint: 'scrape',
      api_version: 'v2',
      target: `${site.url}/article`,
    });
    for (const id of hits) expect(byId.get(id)).toMatchObject({ endpoint: 'scrape' });
    expect(byId.get(crawl.body.id)).toMatchObject({ endpoint: 'crawl', target: `${site.url}/docs` });
    expect(byId.get(batch.body.id)).toMatchObject({ endpoint: 'batch_scrape', target: `${site.url}/meta` });
    expect(items.filter((i) => i.endpoint === 'map')).toEqual([
      expect.objectContaining({ target: site.url }),
    ]);
    const times = items.map((i) => Date.parse(i.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // Only the team's own activity; the filter narrows it.
    expect((await listAll(other.key, 50)).items).toEqual([]);
    const crawls = await listAll(team.key, 50, undefined, '&endpoint=crawl');
    expect(crawls.items.map((i) => i.id)).toEqual([crawl.body.id]);

    // Every listed id through its retrieval endpoint: the team reads it, another team gets 403.
    const retrieval: Record<string, string> = {
      scrape: '/v2/scrape/',
      crawl: '/v2/crawl/',
      batch_scrape: '/v2/batch/scrape/',
    };
    for (const item of items.filter((i) => retrieval[i.endpoint])) {
      const own = await call('GET', `${retrieval[item.endpoint]}${item.id}`, team.key);
      expect({ id: item.id, status: own.status }).toEqual({ id: item.id, status: 200 });
      const foreign = await call('GET', `${retrieval[item.endpoint]}${item.id}`, other.key);
      expect({ id: item.id, status: foreign.status }).toEqual({ id: item.id, status: 403 });
    }
  }, 120_000);

  it('keeps no target of zero-data-retention calls', async () => {
    const team = await adminTeam({ zdr: true });
    const res = await call('POST', '/v2/scrape', team.key, {
      url: `${site.url}/meta`,
      formats: ['markdown'],
      zeroDataRetention: true,
    });
    expect(res.status).toBe(200);
    const [item] = await waitForActivity(team.key, 1);
    expect(item).toMatchObject({ id: res.body.data.metadata.scrapeId, endpoint: 'scrape', target: null });
  }, 60_000);

  it('pages through more than 250 items while new ones arrive: none skipped, none repeated', async () => {
    const team = await adminTeam();
    const scrapeOnce = async () => {
      const r = await call('POST', '/v2/scrape', team.key, {
        url: `${site.url}/article`,
        formats: ['markdown'],
      });
      expect(r.status).toBe(200);
      return r.body.data.metadata.scrapeId as string;
    };
    const ids: string[] = [];
    for (let round = 0; round < 27; round++)
      ids.push(...(await Promise.all(Array.from({ length: 10 }, scrapeOnce))));
    await waitForActivity(team.key, 270);
    const arrived: string[] = [];
    const { items, pages } = await listAll(team.key, 40, async () => {
      arrived.push(...(await Promise.all(Array.from({ length: 5 }, scrapeOnce))));
      await sleep(100);
    });
    expect(pages).toBe(Math.ceil(270 / 40));
    const listed = items.map((i) => i.id);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.sort()).toEqual([...ids].sort());
    // A fresh listing shows what arrived meanwhile.
    const fresh = await waitForActivity(team.key, 270 + arrived.length);
    expect(new Set(fresh.map((i) => i.id))).toEqual(new Set([...ids, ...arrived]));
  }, 240_000);

  it('answers bad input with a 400 naming the parameter, and a tampered cursor too', async () => {
    const team = await adminTeam();
    for (let i = 0; i < 3; i++) {
      await call('POST', '/v2/scrape', team.key, { url: `${site.url}/article`, formats: ['markdown'] });
    }
    await waitForActivity(team.key, 3);
    const cases: [string, string][] = [
      ['/v2/team/activity?endpoint=bogus', 'endpoint'],
      ['/v2/team/activity?limit=0', 'limit'],
      ['/v2/team/activity?limit=101', 'limit'],
      ['/v2/team/activity?limit=abc', 'limit'],
      ['/v2/team/activity?cursor=not-a-cursor', 'cursor'],
      ['/v2/team/credit-usage/historical?byApiKey=maybe', 'byApiKey'],
      ['/v2/team/token-usage/historical?byApiKey=1', 'byApiKey'],
    ];
    for (const [route, param] of cases) {
      const res = await call('GET', route, team.key);
      expect({ route, status: res.status, success: res.body.success }).toEqual({
        route,
        status: 400,
        success: false,
      });
      expect(res.body.error).toContain(param);
    }
    const page = await call('GET', '/v2/team/activity?limit=1', team.key);
    const cursor: string = page.body.cursor;
    const [body, sig] = cursor.split('.');
    const edited = JSON.parse(Buffer.from(body, 'base64url').toString());
    edited.f = 0;
    const forged = `${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${sig}`;
    const other = await adminTeam();
    for (const [key, c] of [
      [team.key, forged],
      [other.key, cursor],
    ]) {
      const res = await call('GET', `/v2/team/activity?cursor=${encodeURIComponent(c)}`, key);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('cursor');
    }
  }, 60_000);

  it('reports credits and tokens per month and API key, queue and concurrency, with both SDKs', async () => {
    const team = await adminTeam({ credits: 5_000 });
    const second = await call('POST', `/admin/v1/teams/${team.teamId}/api-keys`, ADMIN_TOKEN, {
      name: 'second',
    });
    expect(second.status).toBe(201);
    const prefixOf = (key: string) => /^wds_([a-z0-9]{12})_/.exec(key)![1];
    await call('POST', '/v2/scrape', team.key, { url: `${site.url}/article`, formats: ['markdown'] });
    await call('POST', '/v2/scrape', second.body.apiKey, { url: `${site.url}/meta`, formats: ['markdown'] });
    await call('POST', '/v2/scrape', second.body.apiKey, { url: `${site.url}/meta`, formats: ['markdown'] });
    const crawl = await call('POST', '/v2/crawl', team.key, {
      url: `${site.url}/docs`,
      limit: 3,
      sitemap: 'skip',
    });
    for (const end = Date.now() + 60_000; ;) {
      const status = await call('GET', `/v2/crawl/${crawl.body.id}`, team.key);
      if (status.body.status === 'completed') break;
      if (Date.now() > end) throw new Error('crawl did not complete');
      await sleep(250);
    }
    // Usage reaches billing in batches within a second or so.
    let historical: any;
    for (const end = Date.now() + 30_000; ;) {
      historical = await call('GET', '/v2/team/credit-usage/historical?byApiKey=true', team.key);
      const total = historical.body.periods.reduce((s: number, p: any) => s + p.creditsUsed, 0);
      if (total >= 6) break;
      if (Date.now() > end) throw new Error(`credits on record: ${total}`);
      await sleep(250);
    }
    const perKey = Object.fromEntries(historical.body.periods.map((p: any) => [p.apiKey, p.creditsUsed]));
    expect(perKey).toEqual({
      [`wds_${prefixOf(team.key)}_********`]: 4, // a scrape and three crawl pages
      [`wds_${prefixOf(second.body.apiKey)}_********`]: 2,
    });
    expect(JSON.stringify(historical.body)).not.toContain(team.key.slice(-20));
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();

    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const js = new Firecrawl({ apiKey: team.key, apiUrl: stack.url });
    const credit = await js.getCreditUsage();
    expect(credit).toMatchObject({ remainingCredits: 5_000 - 6, planCredits: 5_000 });
    expect(credit.billingPeriodStart).toBe(monthStart);
    const tokens = await js.getTokenUsage();
    expect(tokens).toMatchObject({ remainingTokens: (5_000 - 6) * 15 });
    const hist = await js.getCreditUsageHistorical();
    expect(hist.periods).toEqual([expect.objectContaining({ startDate: monthStart, creditsUsed: 6 })]);
    const tokHist = await js.getTokenUsageHistorical(true);
    expect(tokHist.periods.map((p: any) => p.tokensUsed).sort((a: number, b: number) => a - b)).toEqual([
      30, 60,
    ]);
    // The crawl's last page hands its slot back just after the crawl reads completed (as in the
    // queue test below): the queue settles to empty a moment later.
    let queue = await js.getQueueStatus();
    for (const end = Date.now() + 10_000; queue.jobsInQueue !== 0 && Date.now() < end;) {
      await sleep(100);
      queue = await js.getQueueStatus();
    }
    expect(queue).toMatchObject({
      success: true,
      jobsInQueue: 0,
      activeJobsInQueue: 0,
      waitingJobsInQueue: 0,
      maxConcurrency: 40,
    });
    expect(Date.parse(queue.mostRecentSuccess!)).toBeGreaterThan(Date.now() - 120_000);
    expect(await js.getConcurrency()).toMatchObject({ concurrency: 0, maxConcurrency: 40 });

    const py = await pythonSdk();
    const { result } = await py.run(
      `
c = client()
# firecrawl-py 4.55 exposes the historical methods on its v2 client (c.v2), not on Firecrawl itself.
emit({
  "credit": c.get_credit_usage(),
  "token": c.get_token_usage(),
  "credit_hist": c.v2.get_credit_usage_historical(),
  "credit_hist_keys": c.v2.get_credit_usage_historical(by_api_key=True),
  "token_hist_keys": c.v2.get_token_usage_historical(by_api_key=True),
  "queue": c.get_queue_status(),
  "concurrency": c.get_concurrency(),
})
`,
      { apiUrl: stack.url, apiKey: team.key },
    );
    expect(result.credit).toMatchObject({ remaining_credits: 5_000 - 6, plan_credits: 5_000 });
    expect(result.token).toMatchObject({ remaining_tokens: (5_000 - 6) * 15 });
    expect(result.credit_hist.periods).toEqual([expect.objectContaining({ creditsUsed: 6 })]);
    expect(result.credit_hist_keys.periods).toHaveLength(2);
    const pyTokens = result.token_hist_keys.periods.map((p: any) => [p.apiKey, p.tokensUsed]).sort();
    expect(pyTokens).toEqual(
      [
        [`wds_${prefixOf(second.body.apiKey)}_********`, 30],
        [`wds_${prefixOf(team.key)}_********`, 60],
      ].sort(),
    );
    expect(result.queue).toMatchObject({ jobs_in_queue: 0, max_concurrency: 40 });
    expect(result.concurrency).toMatchObject({ concurrency: 0, max_concurrency: 40 });
  }, 180_000);

  it('shows pages in flight and pages waiting for a slot in queue-status and concurrency-check', async () => {
    const team = await adminTeam({ maxConcurrency: 2 });
    const urls = [1, 2, 3, 4].map((i) => `${site.url}/slow?ms=4000&i=${i}-${randomBytes(4).toString('hex')}`);
    const batch = await call('POST', '/v2/batch/scrape', team.key, { urls, formats: ['markdown'] });
    expect(batch.status).toBe(200);
    let queue: any;
    for (const end = Date.now() + 15_000; ;) {
      queue = await call('GET', '/v2/team/queue-status', team.key);
      expect(queue.status).toBe(200);
      if (queue.body.activeJobsInQueue === 2 && queue.body.waitingJobsInQueue === 2) break;
      if (Date.now() > end) throw new Error(`queue never showed 2 + 2: ${JSON.stringify(queue.body)}`);
      await sleep(100);
    }
    expect(queue.body).toMatchObject({ success: true, jobsInQueue: 4, maxConcurrency: 2 });
    const check = await call('GET', '/v2/concurrency-check', team.key);
    expect(check.body).toMatchObject({ success: true, concurrency: 2, maxConcurrency: 2 });
    for (const end = Date.now() + 30_000; ;) {
      const status = await call('GET', `/v2/batch/scrape/${batch.body.id}`, team.key);
      if (status.body.status === 'completed') break;
      if (Date.now() > end) throw new Error('batch did not complete');
      await sleep(250);
    }
    // A finished request's concurrency lease and a finished page's slot are handed back just after
    // the answer is sent, so the queue settles to empty a moment after the batch reads completed.
    let after: any;
    for (const end = Date.now() + 10_000; ;) {
      after = await call('GET', '/v2/team/queue-status', team.key);
      if (after.body.jobsInQueue === 0 || Date.now() > end) break;
      await sleep(100);
    }
    expect(after.body).toMatchObject({ jobsInQueue: 0, activeJobsInQueue: 0, waitingJobsInQueue: 0 });
    expect(Date.parse(after.body.mostRecentSuccess)).toBeGreaterThan(Date.now() - 60_000);
  }, 60_000);

  it("lets the admin API read any team's activity and usage (404 unknown team, API keys refused)", async () => {
    const team = await adminTeam();
    const scrape = await call('POST', '/v2/scrape', team.key, {
      url: `${site.url}/article`,
      formats: ['markdown'],
    });
    await waitForActivity(team.key, 1);
    const own = await call('GET', '/v2/team/activity', team.key);
    const admin = await call('GET', `/admin/v1/teams/${team.teamId}/activity?limit=10`, ADMIN_TOKEN);
    expect(admin.status).toBe(200);
    expect(admin.body.data).toEqual(own.body.data);
    expect(admin.body.data[0].id).toBe(scrape.body.data.metadata.scrapeId);
    const usage = await call('GET', `/admin/v1/teams/${team.teamId}/credit-usage`, ADMIN_TOKEN);
    expect(usage).toMatchObject({ status: 200, body: { success: true, data: { planCredits: 100_000 } } });
    // The scrape's credits reach billing with the gateway's next usage report (batched).
    for (const route of ['credit-usage/historical?byApiKey=true', 'token-usage/historical']) {
      for (const end = Date.now() + 20_000; ;) {
        const res = await call('GET', `/admin/v1/teams/${team.teamId}/${route}`, ADMIN_TOKEN);
        expect(res.status).toBe(200);
        if (res.body.periods.some((p: any) => (p.creditsUsed ?? p.tokensUsed) > 0)) break;
        if (Date.now() > end) throw new Error(`${route}: no usage on record: ${JSON.stringify(res.body)}`);
        await sleep(200);
      }
    }
    expect((await call('GET', `/admin/v1/teams/${team.teamId}/activity?limit=0`, ADMIN_TOKEN)).status).toBe(
      400,
    );
    const unknown = await call(
      'GET',
      '/admin/v1/teams/00000000-0000-4000-8000-000000000000/activity',
      ADMIN_TOKEN,
    );
    expect(unknown.status).toBe(404);
    const withKey = await call('GET', `/admin/v1/teams/${team.teamId}/activity`, team.key);
    expect([401, 403]).toContain(withKey.status);
    const doc = await call('GET', '/v2/openapi.json', team.key);
    for (const p of [
      '/v2/team/activity',
      '/v2/team/credit-usage/historical',
      '/v2/team/queue-status',
      '/v2/concurrency-check',
      '/admin/v1/teams/{teamId}/activity',
      '/admin/v1/teams/{teamId}/credit-usage/historical',
    ]) {
      expect(doc.body.paths[p]).toBeDefined();
    }
  }, 60_000);
});
