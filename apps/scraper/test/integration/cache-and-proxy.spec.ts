import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  packHitBatch,
  PER_REQUEST_METADATA_KEYS,
  SCRAPE_HITS,
  SCRAPE_RPC,
  ScrapeRequest,
  scrapeCacheKey,
} from '@wds/contracts';
import { Client } from 'pg';
import { FIXTURE_TEXT, startFixtureSite, type FixtureSite } from '@wds/testing';
import { startBlockingSite, startConnectProxy, type TestProxy } from '../support/proxies';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

describe('scraper service: cache rules, ZDR and proxies', () => {
  let site: FixtureSite;
  let scraper: ScraperHarness;
  let basic: TestProxy;
  let enhanced: TestProxy;
  let blocker: Awaited<ReturnType<typeof startBlockingSite>>;
  const team = () => `team-${randomUUID()}`;
  // A query string the fixture ignores gives each test its own cache identity.
  const page = (path = '/article') => `${site.url}${path}?t=${randomUUID()}`;

  beforeAll(async () => {
    site = await startFixtureSite();
    blocker = await startBlockingSite();
    basic = await startConnectProxy(blocker.port);
    enhanced = await startConnectProxy();
    scraper = await startScraper({
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      WDS_PROXY_BASIC: basic.url,
      WDS_PROXY_ENHANCED: enhanced.url,
    });
  });
  afterAll(async () => {
    await scraper?.stop();
    await Promise.all([basic?.close(), enhanced?.close(), blocker?.close(), site?.close()]);
  });

  const sqlCount = async (sql: string, params: unknown[]) => {
    const c = new Client({ connectionString: scraper.service.config.DATABASE_URL });
    await c.connect();
    try {
      return Number((await c.query<{ n: string }>(sql, params)).rows[0].n);
    } finally {
      await c.end();
    }
  };

  /** Retries a call that fails until the system catches up (at most ~5 s). */
  const eventually = async <T>(fn: () => Promise<T>): Promise<T> => {
    for (let i = 0; ; i++) {
      try {
        return await fn();
      } catch (err) {
        if (i >= 100) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  it('serves a cached copy younger than maxAge without fetching again', async () => {
    const url = page();
    const first = await scraper.scrape(team(), { url, proxy: 'enhanced' });
    expect(first.document.metadata?.cacheState).toBe('miss');
    const hits = site.hits('/article');
    const second = await scraper.scrape(team(), { url });
    expect(second.cacheHit).toBe(true);
    expect(second.document.metadata).toMatchObject({ cacheState: 'hit', sourceURL: url });
    expect(second.document.metadata?.scrapeId).not.toBe(first.document.metadata?.scrapeId);
    expect(second.document.markdown).toBe(first.document.markdown);
    expect(second.creditsUsed).toBe(1);
    expect(site.hits('/article')).toBe(hits);
  });

  it("a cache hit is stored as its own job: GET returns the document with that job's metadata", async () => {
    const owner = team();
    const url = page();
    await scraper.scrape(owner, { url });
    const hits = await Promise.all([1, 2, 3].map(() => scraper.scrape(owner, { url })));
    for (const hit of hits) {
      const jobId = hit.document.metadata!.scrapeId!;
      const stored = await scraper.client.request(SCRAPE_RPC.get, { teamId: owner, jobId });
      expect(stored.document).toEqual(hit.document);
      expect(stored.document?.metadata).toMatchObject({ scrapeId: jobId, cacheState: 'hit', creditsUsed: 1 });
    }
    await expect(
      scraper.client.request(SCRAPE_RPC.get, { teamId: team(), jobId: hits[0].document.metadata!.scrapeId! }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('names the cache entry a document came from, and stores hits a gateway answered from a copy of it', async () => {
    const url = page();
    const fresh = await scraper.scrape(team(), { url });
    const key = scrapeCacheKey(ScrapeRequest.parse({ url }));
    expect(fresh.cached).toMatchObject({ key, contentCredits: 1 });
    const { fetchedAt, expiresAt } = fresh.cached!;
    expect(expiresAt).toBeGreaterThan(fetchedAt);
    const hit = await scraper.scrape(team(), { url });
    expect(hit.cached).toEqual(fresh.cached);
    // Nothing names an entry when the document is not one (kept out of the cache).
    expect((await scraper.scrape(team(), { url, maxAge: 0, storeInCache: false })).cached).toBeUndefined();

    // As a gateway publishes them: the entry's document without request metadata, compressed.
    const base = { ...hit.document, metadata: { ...hit.document.metadata } } as Record<string, any>;
    for (const k of PER_REQUEST_METADATA_KEYS) delete base.metadata[k];
    const documentGz = gzipSync(JSON.stringify(base)).toString('base64');
    const owner = team();
    const jobs = [randomUUID(), randomUUID()];
    const batch = packHitBatch(
      jobs.map((jobId) => ({
        teamId: owner,
        jobId,
        url,
        fetchedAt,
        creditsUsed: 1,
        statusCode: 200,
        documentGz,
      })),
    );
    expect(batch.documents).toHaveLength(1);
    await scraper.client.publish(SCRAPE_HITS, batch, { msgId: randomUUID() });
    for (const jobId of jobs) {
      const stored = await eventually(() => scraper.client.request(SCRAPE_RPC.get, { teamId: owner, jobId }));
      expect(stored.document).toEqual({
        ...hit.document,
        metadata: { ...hit.document.metadata, scrapeId: jobId, cachedAt: new Date(fetchedAt).toISOString() },
      });
    }
    await expect(
      scraper.client.request(SCRAPE_RPC.get, { teamId: team(), jobId: jobs[0] }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(
      await sqlCount('SELECT count(*) AS n FROM scraper.scrapes WHERE id = ANY($1::uuid[]) AND cache_hit', [
        jobs,
      ]),
    ).toBe(2);
  });

  it('maxAge 0 always fetches; options that change the output never share an entry', async () => {
    const url = page();
    await scraper.scrape(team(), { url, proxy: 'enhanced' });
    const hits = site.hits('/article');
    expect((await scraper.scrape(team(), { url, proxy: 'enhanced', maxAge: 0 })).cacheHit).toBe(false);
    expect((await scraper.scrape(team(), { url, proxy: 'enhanced', formats: ['html'] })).cacheHit).toBe(
      false,
    );
    expect((await scraper.scrape(team(), { url, proxy: 'enhanced', mobile: true })).cacheHit).toBe(false);
    expect(site.hits('/article')).toBe(hits + 3);
  });

  it('minAge reads the cache only: SCRAPE_NO_CACHED_DATA on a miss, the entry once it is old enough', async () => {
    const url = page();
    await expect(scraper.scrape(team(), { url, minAge: 1 })).rejects.toMatchObject({
      code: 'SCRAPE_NO_CACHED_DATA',
    });
    await scraper.scrape(team(), { url, proxy: 'enhanced' });
    await expect(scraper.scrape(team(), { url, minAge: 60_000 })).rejects.toMatchObject({
      code: 'SCRAPE_NO_CACHED_DATA',
    });
    await new Promise((r) => setTimeout(r, 20));
    const hit = await scraper.scrape(team(), { url, minAge: 1 });
    expect(hit.cacheHit).toBe(true);
  });

  it('lockdown: cache only, 5 credits on a hit, 404 SCRAPE_LOCKDOWN_CACHE_MISS billed 1, URL not kept', async () => {
    const url = page();
    const hitsBefore = site.hits('/article');
    const miss = scraper.scrape(team(), { url, lockdown: true });
    await expect(miss).rejects.toMatchObject({
      code: 'SCRAPE_LOCKDOWN_CACHE_MISS',
      details: { creditsUsed: 1 },
    });
    expect(site.hits('/article')).toBe(hitsBefore);
    await scraper.scrape(team(), { url, proxy: 'enhanced' });
    const hit = await scraper.scrape(team(), { url, lockdown: true });
    expect(hit.creditsUsed).toBe(5);
    expect(hit.document.markdown).toContain(FIXTURE_TEXT.articleLead);
    expect(
      await sqlCount('SELECT count(*) AS n FROM scraper.scrapes WHERE id = $1 AND url IS NULL', [
        hit.document.metadata!.scrapeId,
      ]),
    ).toBe(1);
  });

  it('storeInCache false and caller headers keep the page out of the cache', async () => {
    const url = page();
    await scraper.scrape(team(), { url, proxy: 'enhanced', storeInCache: false });
    await scraper.scrape(team(), { url, proxy: 'enhanced', headers: { 'X-Test': '1' } });
    await expect(scraper.scrape(team(), { url, minAge: 1 })).rejects.toMatchObject({
      code: 'SCRAPE_NO_CACHED_DATA',
    });
  });

  it('zeroDataRetention stores neither URL nor document, and GET finds nothing', async () => {
    const owner = team();
    const url = page();
    const reply = await scraper.scrape(owner, { url, proxy: 'enhanced', zeroDataRetention: true });
    const jobId = reply.document.metadata!.scrapeId!;
    expect(
      await sqlCount(
        'SELECT count(*) AS n FROM scraper.scrapes WHERE id = $1 AND url IS NULL AND document_gz IS NULL',
        [jobId],
      ),
    ).toBe(1);
    expect(await sqlCount('SELECT count(*) AS n FROM scraper.cache_entries WHERE url = $1', [url])).toBe(0);
    await expect(scraper.client.request(SCRAPE_RPC.get, { teamId: owner, jobId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('proxy auto: a 403 through the basic pool is retried on enhanced and billed 5', async () => {
    const before = { blocked: blocker.hits(), served: site.hits('/article') };
    const reply = await scraper.scrape(team(), { url: page(), proxy: 'auto' });
    // tunnels are kept alive, so count the answers behind each proxy rather than CONNECTs
    expect(blocker.hits()).toBe(before.blocked + 1);
    expect(site.hits('/article')).toBe(before.served + 1);
    expect(basic.connects).toBeGreaterThan(0);
    expect(enhanced.connects).toBeGreaterThan(0);
    expect(reply.document.metadata).toMatchObject({ statusCode: 200, proxyUsed: 'enhanced' });
    expect(reply.creditsUsed).toBe(5);
  });

  it('proxy basic: the blocked answer is returned as is, at the regular cost', async () => {
    const reply = await scraper.scrape(team(), { url: page(), proxy: 'basic' });
    expect(reply.document.metadata).toMatchObject({ statusCode: 403, proxyUsed: 'basic' });
    expect(reply.creditsUsed).toBe(1);
  });

  it('records the credits with the job', async () => {
    const reply = await scraper.scrape(team(), { url: page('/sample.pdf'), proxy: 'enhanced' });
    expect(reply.creditsUsed).toBe(2 + 4);
    const jobId = reply.document.metadata!.scrapeId!;
    expect(await sqlCount('SELECT credits_used AS n FROM scraper.scrapes WHERE id = $1', [jobId])).toBe(6);
  });
});
