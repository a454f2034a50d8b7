import { randomUUID } from 'node:crypto';
import { startCountingSite, type CountingSite } from '../support/counting-site';
import {
  buildServices,
  sourcesOf,
  startBatchStack,
  type BatchStack,
  type ServiceChild,
  type Team,
} from '../support/batch-stack';

/**
 * Short ack wait and watchdog periods, so a killed worker's pages come back within seconds; that
 * includes pages claimed by a transaction that committed just before the SIGKILL whose tasks were
 * never published (the watchdog republishes them after the redispatch delay).
 */
const WORKER_ENV = {
  WDS_BATCH_ACK_WAIT_MS: '5000',
  WDS_BATCH_WATCHDOG_INTERVAL_MS: '500',
  WDS_BATCH_RECONCILE_MS: '5000',
  WDS_BATCH_REDISPATCH_MS: '8000',
};
const CRAWLER_ENV = { WDS_CRAWL_WATCHDOG_INTERVAL_MS: '500' };
/** Pages of the crawl that shares its team's limit with a batch (plus its start page). */
const CRAWL_LINKS = 16;

describe('batch scrape through the gateway (real gateway, billing, scraper and batch processes)', () => {
  let stack: BatchStack;
  let worker: ServiceChild;
  let team: Team;
  let counting: CountingSite;
  const page = (p: string) => `${stack.site.url}${p}`;
  const create = (json: Record<string, unknown>, key = team.apiKey) =>
    stack.call('POST', '/v2/batch/scrape', { key, json });

  beforeAll(async () => {
    buildServices();
    counting = await startCountingSite(300, CRAWL_LINKS);
    stack = await startBatchStack({ allowPorts: [counting.port] });
    worker = await stack.spawnService('batch', WORKER_ENV);
    team = await stack.team();
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    await counting?.close();
  }, 60_000);

  it('scrapes every URL once, completes, and charges one credit per page', async () => {
    const paths = ['/', '/article', '/meta', '/docs', '/docs/a', '/docs/b'];
    const before = await stack.balance(team.teamId);
    const webhook = {
      url: 'http://127.0.0.1:9/hook',
      metadata: { run: 'one' },
      events: ['started', 'page', 'completed'],
    };
    const res = await create({
      urls: [...paths.map(page), page('/article')],
      formats: ['markdown'],
      webhook,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      id: expect.any(String),
      url: `${stack.url}/v2/batch/scrape/${res.body.id}`,
    });

    const ended = await stack.waitEnded(team.apiKey, res.body.id);
    expect(ended).toMatchObject({
      success: true,
      status: 'completed',
      total: 6,
      completed: 6,
      creditsUsed: 6,
    });
    expect(Number.isNaN(Date.parse(ended.expiresAt))).toBe(false);
    const { docs, first, pages } = await stack.allDocuments(team.apiKey, res.body.id);
    expect(first.next).toBeNull();
    expect(pages).toBe(1);
    expect(sourcesOf(docs)).toEqual([...paths].sort());
    for (const doc of docs) expect(doc.markdown).toEqual(expect.any(String));
    expect(docs.find((d) => d.metadata.sourceURL === page('/article')).markdown).toContain('#');
    expect(before - (await stack.balance(team.teamId))).toBe(6);

    // Job events for the webhooks service: started, one per page, completed; with config and team.
    const completedEvent = () =>
      stack.events.some((e) => e.id === res.body.id && e.type.endsWith('.completed'));
    for (const until = Date.now() + 5000; !completedEvent() && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const events = stack.events.filter((e) => e.id === res.body.id);
    // Pages finishing together may publish their events in either order, so compare as a multiset.
    expect(events.map((e) => e.type).sort()).toEqual(
      ['batch_scrape.started', 'batch_scrape.completed', ...paths.map(() => 'batch_scrape.page')].sort(),
    );
    expect(events[0].type).toBe('batch_scrape.started');
    for (const e of events)
      expect(e).toMatchObject({ teamId: team.teamId, webhook, metadata: { run: 'one' } });
    expect(
      events.filter((e) => e.type === 'batch_scrape.page').every((e) => e.success && e.data.length === 1),
    ).toBe(true);
  }, 60_000);

  it('refuses invalid URLs naming them, or sets them aside with ignoreInvalidURLs', async () => {
    const refused = await create({ urls: [page('/article'), 'not a url', 'ftp://example.com/x'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('"not a url"');
    expect(refused.body.error).toContain('ftp://example.com/x');

    const none = await create({ urls: ['not a url'], ignoreInvalidURLs: true });
    expect(none.status).toBe(400);
    expect((await create({ urls: [] })).status).toBe(400);

    const res = await create({ urls: ['not a url', page('/meta')], ignoreInvalidURLs: true });
    expect(res.status).toBe(200);
    expect(res.body.invalidURLs).toEqual(['not a url']);
    const ended = await stack.waitEnded(team.apiKey, res.body.id);
    expect(ended).toMatchObject({ status: 'completed', total: 1, completed: 1 });
    expect(sourcesOf(ended.data)).toEqual(['/meta']);
  }, 60_000);

  it('appends URLs to a running batch of the same team (appendToId) and refuses other cases', async () => {
    const slow = [page('/slow?ms=1200&n=a'), page('/slow?ms=1200&n=b')];
    const res = await create({ urls: slow, maxConcurrency: 1 });
    expect(res.status).toBe(200);
    const id = res.body.id;

    const other = await stack.team();
    expect((await create({ urls: [page('/meta')], appendToId: id }, other.apiKey)).status).toBe(403);
    expect((await create({ urls: [page('/meta')], appendToId: randomUUID() })).status).toBe(404);
    const otherOptions = await create({ urls: [page('/meta')], appendToId: id, formats: ['html'] });
    expect(otherOptions.status).toBe(400);
    expect(otherOptions.body.error).toContain('appendToId');

    const appended = await create({ urls: [page('/article'), page('/meta'), slow[0]], appendToId: id });
    expect(appended.status).toBe(200);
    expect(appended.body.id).toBe(id);

    const ended = await stack.waitEnded(team.apiKey, id);
    expect(ended).toMatchObject({ status: 'completed', total: 4, completed: 4, creditsUsed: 4 });
    const { docs } = await stack.allDocuments(team.apiKey, id);
    expect(sourcesOf(docs)).toEqual(['/article', '/meta', '/slow?ms=1200&n=a', '/slow?ms=1200&n=b']);

    // Appending to a completed batch reopens it: the new pages run, `total` grows, and a second
    // batch_scrape.completed (its own webhookId) follows.
    const late = await create({ urls: [page('/slow?ms=800&n=late'), page('/article')], appendToId: id });
    expect(late.status).toBe(200);
    expect(late.body.id).toBe(id);
    const running = await stack.call('GET', `/v2/batch/scrape/${id}?limit=1`, { key: team.apiKey });
    expect(running.body).toMatchObject({ status: 'scraping', total: 5 });
    const again = await stack.waitEnded(team.apiKey, id);
    expect(again).toMatchObject({ status: 'completed', total: 5, completed: 5, creditsUsed: 5 });
    const completions = () => stack.events.filter((e) => e.id === id && e.type === 'batch_scrape.completed');
    for (const until = Date.now() + 5000; completions().length < 2 && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = completions();
    expect(done).toHaveLength(2);
    expect(done[0].webhookId).not.toBe(done[1].webhookId);
    // The same append again (a client retry) adds nothing and leaves the batch completed.
    const retried = await create({ urls: [page('/slow?ms=800&n=late')], appendToId: id });
    expect(retried.status).toBe(200);
    expect(await stack.waitEnded(team.apiKey, id)).toMatchObject({ status: 'completed', total: 5 });
  }, 60_000);

  it('cancels a running batch; a second cancel is a conflict', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => page(`/slow?ms=1500&c=${i}`));
    const res = await create({ urls, maxConcurrency: 1 });
    expect(res.status).toBe(200);
    const cancel = await stack.call('DELETE', `/v2/batch/scrape/${res.body.id}`, { key: team.apiKey });
    expect(cancel).toEqual({ status: 200, body: { success: true, status: 'cancelled' } });
    await new Promise((r) => setTimeout(r, 2000));
    const status = await stack.call('GET', `/v2/batch/scrape/${res.body.id}`, { key: team.apiKey });
    expect(status.body).toMatchObject({ status: 'cancelled', next: null });
    expect(status.body.completed).toBeLessThanOrEqual(1);
    const again = await stack.call('DELETE', `/v2/batch/scrape/${res.body.id}`, { key: team.apiKey });
    expect(again.status).toBe(409);
    // A cancelled batch stays stopped: appending to it is a conflict.
    const append = await create({ urls: [page('/meta')], appendToId: res.body.id });
    expect(append.status).toBe(409);
    expect(append.body.error).toContain('cancelled');
  }, 60_000);

  it('keeps a crawl and a batch of one team within the team limit together, serving both in turn', async () => {
    const crawler = await stack.spawnService('crawler', CRAWLER_ENV);
    const owner = await stack.team({ maxConcurrency: 2 });
    const crawl = await stack.call('POST', '/v2/crawl', {
      key: owner.apiKey,
      json: { url: `${counting.url}/c/`, limit: CRAWL_LINKS + 1, sitemap: 'skip' },
    });
    expect(crawl.status).toBe(200);
    // The start page is read, its links are queued and two of them are being fetched.
    for (const until = Date.now() + 20_000; ;) {
      if (counting.fetches.filter((f) => f.path.startsWith('/c/p')).length >= 2 && counting.inflight() === 2)
        break;
      if (Date.now() > until) throw new Error('the crawl did not fill the team limit');
      await new Promise((r) => setTimeout(r, 20));
    }
    const batchPaths = Array.from({ length: 4 }, (_, i) => `/b/${i}`);
    const batch = await create({ urls: batchPaths.map((p) => `${counting.url}${p}`) }, owner.apiKey);
    expect(batch.status).toBe(200);

    const ended = await stack.waitEnded(owner.apiKey, batch.body.id);
    expect(ended).toMatchObject({ status: 'completed', total: 4, completed: 4 });
    let crawlStatus: any;
    for (const until = Date.now() + 30_000; ;) {
      crawlStatus = (await stack.call('GET', `/v2/crawl/${crawl.body.id}?limit=1`, { key: owner.apiKey }))
        .body;
      if (crawlStatus.status !== 'scraping' || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(crawlStatus).toMatchObject({
      status: 'completed',
      total: CRAWL_LINKS + 1,
      completed: CRAWL_LINKS + 1,
    });
    // While the batch waited, freed slots alternated between the two jobs (round robin). Greedy
    // reuse of the crawl's own freed slots would have started all its pages before any batch page.
    const batchStarts = counting.fetches.filter((f) => f.path.startsWith('/b/')).map((f) => f.start);
    expect(batchStarts).toHaveLength(4);
    const lastBatchStart = Math.max(...batchStarts);
    const crawlStarts = counting.fetches.filter((f) => f.path.startsWith('/c/p')).map((f) => f.start);
    const crawlAfterBatch = crawlStarts.filter((start) => start > lastBatchStart).length;
    expect(crawlAfterBatch).toBeGreaterThanOrEqual(4);
    expect(counting.maxInflight()).toBe(2);
    crawler.child.kill('SIGTERM');
    await crawler.exited;
  }, 90_000);

  it('lists failed pages (DNS failure, blocked destination) in the errors and charges nothing for them', async () => {
    const before = await stack.balance(team.teamId);
    const dns = 'http://no-such-host.invalid/page';
    const blocked = 'http://10.0.0.1/';
    const res = await create({ urls: [dns, blocked, page('/article')] });
    expect(res.status).toBe(200);
    const ended = await stack.waitEnded(team.apiKey, res.body.id);
    // total = pages attempted (failures included), completed = pages scraped (api-v2.md, batch status)
    expect(ended).toMatchObject({ status: 'completed', completed: 1, total: 3, creditsUsed: 1 });
    const errors = await stack.call('GET', `/v2/batch/scrape/${res.body.id}/errors`, { key: team.apiKey });
    expect(errors.status).toBe(200);
    expect(errors.body.robotsBlocked).toEqual([]);
    const byUrl = new Map<string, any>(errors.body.errors.map((e: any) => [e.url, e]));
    expect([...byUrl.keys()].sort()).toEqual([dns, blocked].sort());
    expect(byUrl.get(dns)).toMatchObject({
      code: 'UPSTREAM_FAILED',
      error: expect.stringContaining('resolve'),
    });
    expect(byUrl.get(blocked)).toMatchObject({ code: 'DESTINATION_BLOCKED', error: expect.any(String) });
    expect(before - (await stack.balance(team.teamId))).toBe(1);
  }, 60_000);

  it("refuses another team's batch (403) and unknown ids (404)", async () => {
    const res = await create({ urls: [page('/docs')] });
    const other = await stack.team();
    for (const [method, route] of [
      ['GET', `/v2/batch/scrape/${res.body.id}`],
      ['DELETE', `/v2/batch/scrape/${res.body.id}`],
      ['GET', `/v2/batch/scrape/${res.body.id}/errors`],
    ]) {
      expect((await stack.call(method, route, { key: other.apiKey })).status).toBe(403);
      expect(
        (await stack.call(method, route.replace(res.body.id, randomUUID()), { key: team.apiKey })).status,
      ).toBe(404);
    }
    expect((await stack.call('GET', '/v2/batch/scrape/not-a-uuid', { key: team.apiKey })).status).toBe(400);
    await stack.waitEnded(team.apiKey, res.body.id);
  }, 60_000);

  it('refuses to start a batch, a crawl, an extract or an agent job for a team without credits (402)', async () => {
    const broke = await stack.team({ credits: 0 });
    const starts: [string, Record<string, unknown>, string][] = [
      ['/v2/batch/scrape', { urls: [page('/docs')] }, 'a batch scrape'],
      ['/v2/crawl', { url: page('/') }, 'a crawl'],
      ['/v2/extract', { urls: [page('/docs')], prompt: 'The title.' }, 'an extract job'],
      ['/v2/agent', { prompt: 'The title.' }, 'an agent job'],
    ];
    for (const [route, json, what] of starts) {
      const res = await stack.call('POST', route, { key: broke.apiKey, json });
      expect([route, res.status, res.body]).toEqual([
        route,
        402,
        expect.objectContaining({ success: false, error: `Insufficient credits to start ${what}` }),
      ]);
    }
    // Nothing was started for the team.
    const { rows } = await stack.db.query('SELECT 1 FROM batch.jobs WHERE team_id = $1', [broke.teamId]);
    expect(rows).toEqual([]);
  }, 60_000);

  it('accepts zeroDataRetention only for teams that have it, and keeps such batches briefly', async () => {
    expect((await create({ urls: [page('/docs')], zeroDataRetention: true })).status).toBe(403);
    const zdr = await stack.team({ zeroDataRetention: true });
    const res = await create({ urls: [page('/docs/a')], zeroDataRetention: true }, zdr.apiKey);
    expect(res.status).toBe(200);
    const ended = await stack.waitEnded(zdr.apiKey, res.body.id);
    expect(ended).toMatchObject({ status: 'completed', completed: 1 });
    expect(Date.parse(ended.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    const { rows } = await stack.db.query<{ zdr: boolean }>(
      'SELECT zero_data_retention AS zdr FROM batch.jobs WHERE id = $1',
      [res.body.id],
    );
    expect(rows[0].zdr).toBe(true);
  }, 60_000);

  it('completes every page once, charged once, when its worker is killed mid-job', async () => {
    const owner = await stack.team();
    const before = await stack.balance(owner.teamId);
    const urls = Array.from({ length: 16 }, (_, i) => page(`/slow?ms=300&k=${i}`));
    const res = await create({ urls, maxConcurrency: 2 }, owner.apiKey);
    expect(res.status).toBe(200);
    const id = res.body.id;
    for (let done = 0; done < 3;) {
      await new Promise((r) => setTimeout(r, 50));
      done = (await stack.call('GET', `/v2/batch/scrape/${id}?limit=1`, { key: owner.apiKey })).body
        .completed;
    }
    worker.child.kill('SIGKILL');
    await worker.exited;
    // No batch instance is left to answer the status RPC: read the job itself.
    const mid = await stack.db.query<{ status: string; succeeded: number }>(
      'SELECT status, succeeded FROM batch.jobs WHERE id = $1',
      [id],
    );
    expect(mid.rows[0].status).toBe('scraping');
    expect(mid.rows[0].succeeded).toBeLessThan(16);

    worker = await stack.spawnService('batch', WORKER_ENV);
    const ended = await stack.waitEnded(owner.apiKey, id, 45_000);
    expect(ended).toMatchObject({ status: 'completed', total: 16, completed: 16, creditsUsed: 16 });
    const { docs } = await stack.allDocuments(owner.apiKey, id);
    expect(sourcesOf(docs)).toEqual(urls.map((u) => new URL(u).pathname + new URL(u).search).sort());
    const { rows } = await stack.db.query<{ done: number; credits: number }>(
      `SELECT count(*) FILTER (WHERE status = 'done')::int AS done, sum(credits)::int AS credits
       FROM batch.job_pages WHERE job_id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ done: 16, credits: 16 });
    expect(before - (await stack.balance(owner.teamId))).toBe(16);
  }, 90_000);

  it('runs a batch with the Firecrawl SDK to completion, auto-paginating across 10 MB pages', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const firecrawl = new Firecrawl({ apiKey: team.apiKey, apiUrl: stack.url });
    // Each /large page gives about 1 MB of markdown: 12 of them need two status pages.
    const urls = [
      ...Array.from({ length: 12 }, (_, i) => page(`/large?sdk=${i}`)),
      page('/article'),
      page('/meta'),
    ];
    const job = await firecrawl.batchScrape(urls, {
      options: { formats: ['markdown'] },
      pollInterval: 1,
      timeout: 90,
    });
    expect(job.status).toBe('completed');
    expect(job.total).toBe(urls.length);
    expect(job.completed).toBe(urls.length);
    expect(job.data).toHaveLength(urls.length);
    expect(sourcesOf(job.data).sort()).toEqual(
      urls.map((u) => new URL(u).pathname + new URL(u).search).sort(),
    );
    for (const doc of job.data) expect(doc.markdown?.length).toBeGreaterThan(0);

    const { docs, pages, first } = await stack.allDocuments(team.apiKey, job.id!);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(first.next).toEqual(expect.stringContaining(`/v2/batch/scrape/${job.id}?skip=`));
    expect(first.data.length).toBeLessThan(urls.length);
    expect(Buffer.byteLength(JSON.stringify(first.data))).toBeLessThanOrEqual(10 * 1024 * 1024 + 64 * 1024);
    expect(docs).toHaveLength(urls.length);
  }, 120_000);
});
