import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import {
  CONSUMERS,
  RPC,
  SCRAPE_HITS,
  ScrapeRequest,
  scrapeCacheKey,
  type Document,
  type ScrapeHitRecord,
  type ScrapeRunRequest,
  unpackHitBatch,
} from '@wds/contracts';
import { call, serveBilling, startGateway, startStack, type TestGateway, type TestStack } from './harness';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-for-hot-cache-0123456789';
const HOUR = 3600_000;

/**
 * A scraper stand-in with one cache entry per key: the first scrape of a key "fetches" it, later
 * ones are hits. Its replies name the entry, as the scraper's do, and it consumes the hit batches
 * gateways publish (call `consumeHits` once the gateway has created the stream).
 */
class ScraperStandIn {
  readonly runs: ScrapeRunRequest[] = [];
  readonly recorded: ScrapeHitRecord[] = [];
  readonly entries = new Map<string, { fetchedAt: number; markdown: string }>();

  constructor(stack: TestStack) {
    stack.messaging.serve(RPC.scrapeRun, async (req) => {
      this.runs.push(req);
      const o = req.options;
      const key = scrapeCacheKey(o);
      let entry = o.maxAge > 0 && o.headers === undefined ? this.entries.get(key) : undefined;
      const hit = entry !== undefined && entry.fetchedAt > Date.now() - o.maxAge;
      if (!entry || !hit) {
        entry = { fetchedAt: Date.now(), markdown: `# Page ${randomUUID()}` };
        if (o.storeInCache && o.headers === undefined) this.entries.set(key, entry);
      }
      const stored = this.entries.get(key) === entry;
      const document: Document = {
        markdown: entry.markdown,
        metadata: {
          title: 'A page',
          sourceURL: o.url,
          statusCode: 200,
          scrapeId: req.jobId,
          cacheState: hit ? 'hit' : 'miss',
          ...(hit ? { cachedAt: new Date(entry.fetchedAt).toISOString() } : {}),
          creditsUsed: 1,
        } as Document['metadata'],
      };
      return {
        document,
        creditsUsed: 1,
        cacheHit: hit,
        ...(stored
          ? {
              cached: {
                key,
                fetchedAt: entry.fetchedAt,
                expiresAt: entry.fetchedAt + 48 * HOUR,
                contentCredits: 1,
              },
            }
          : {}),
      };
    });
  }

  async consumeHits(stack: TestStack): Promise<void> {
    await stack.messaging.consume(SCRAPE_HITS, CONSUMERS.scraperHits, async (batch) => {
      this.recorded.push(...unpackHitBatch(batch));
    });
  }
}

describe('gateway: hot copies of scraper cache entries', () => {
  let stack: TestStack;
  let gw: TestGateway;
  let scraper: ScraperStandIn;
  let apiKey: string;
  let teamId: string;
  const url = () => `https://example.com/page/${randomUUID()}`;
  const scrape = async (body: Record<string, unknown>) => {
    const res = await call(gw.url, 'POST', '/v2/scrape', { token: apiKey, json: body });
    expect(res.status).toBe(200);
    return res.body.data as Document;
  };

  beforeAll(async () => {
    stack = await startStack();
    serveBilling(stack);
    scraper = new ScraperStandIn(stack);
    gw = await startGateway(stack, { WDS_ADMIN_TOKEN: ADMIN });
    await scraper.consumeHits(stack);
    const res = await call(gw.url, 'POST', '/admin/v1/teams', { token: ADMIN, json: { name: 'hot' } });
    expect(res.status).toBe(201);
    ({ apiKey, teamId } = res.body);
  });
  afterAll(async () => {
    await gw?.stop();
    await stack?.stop();
  });
  /** The hits recorded so far (a batch reaches the stand-in's consumer moments after it is stored). */
  const recordedHit = async (jobId: string | undefined): Promise<ScrapeHitRecord | undefined> => {
    for (let i = 0; i < 100; i++) {
      const found = scraper.recorded.find((h) => h.jobId === jobId);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  };

  it('answers a repeated hit itself once the hit is recorded, with the hit metadata', async () => {
    const u = url();
    const first = await scrape({ url: u });
    const runs = scraper.runs.length;
    const second = await scrape({ url: u, proxy: 'basic', timeout: 20_000 });
    const third = await scrape({ url: u });
    expect(scraper.runs.length).toBe(runs);
    const entry = scraper.entries.get(scrapeCacheKey(ScrapeRequest.parse({ url: u })))!;
    for (const hit of [second, third]) {
      expect(hit.markdown).toBe(first.markdown);
      expect(hit.metadata).toEqual({
        title: 'A page',
        sourceURL: u,
        statusCode: 200,
        scrapeId: expect.any(String),
        cacheState: 'hit',
        cachedAt: new Date(entry.fetchedAt).toISOString(),
        creditsUsed: 1,
      });
      const recorded = await recordedHit(hit.metadata?.scrapeId);
      expect(recorded).toEqual({
        teamId,
        jobId: hit.metadata?.scrapeId,
        url: u,
        fetchedAt: entry.fetchedAt,
        creditsUsed: 1,
        statusCode: 200,
        documentGz: expect.any(String),
        // What the scraper records the call's team activity with (no message of its own).
        apiKey: expect.stringMatching(/^[a-z0-9]{12}$/),
        answeredAt: expect.any(Number),
      });
      // The stored document is the entry's, without any request's metadata.
      expect(JSON.parse(gunzipSync(Buffer.from(recorded!.documentGz, 'base64')).toString())).toEqual({
        markdown: first.markdown,
        metadata: { title: 'A page', sourceURL: u, statusCode: 200 },
      });
    }
    expect(second.metadata?.scrapeId).not.toBe(third.metadata?.scrapeId);
  });

  it('records a hot hit as team activity without a message of its own', async () => {
    // Activity of a scrape is published by the scraper with the job row; for a hot hit the gateway
    // only adds the key and the answer time to the hit record it publishes anyway (ADR 0012).
    const seen: string[] = [];
    const sub = stack.messaging.nc.subscribe('wds.activity.v1.>', {
      callback: (_e, m) => seen.push(m.subject),
    });
    try {
      const u = url();
      await scrape({ url: u });
      const run = scraper.runs[scraper.runs.length - 1];
      expect(run.activity).toEqual({ apiKey: expect.stringMatching(/^[a-z0-9]{12}$/) });
      const hits = [await scrape({ url: u }), await scrape({ url: u })];
      for (const hit of hits) {
        expect(await recordedHit(hit.metadata?.scrapeId)).toMatchObject({ apiKey: run.activity!.apiKey });
      }
      await stack.messaging.nc.flush();
      expect(seen).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('asks the scraper whenever its own rules might answer differently', async () => {
    const u = url();
    await scrape({ url: u });
    const cases: Record<string, unknown>[] = [
      { url: u, maxAge: 1 }, // the copy is older than that
      { url: u, headers: { 'x-a': 'b' } },
      { url: u, zeroDataRetention: false, minAge: 1 },
      { url: u, formats: ['html'] }, // another cache identity
      { url: u, waitFor: 100 }, // needs a browser: the scraper decides whether it has one
    ];
    for (const body of cases) {
      const before = scraper.runs.length;
      await call(gw.url, 'POST', '/v2/scrape', { token: apiKey, json: body });
      expect({ body, runs: scraper.runs.length - before }).toEqual({ body, runs: 1 });
    }
  });

  it('keeps the newer entry when a fresh fetch replaces the copy', async () => {
    const u = url();
    await scrape({ url: u });
    const before = scraper.runs.length;
    const fresh = await scrape({ url: u, maxAge: 0 });
    const hit = await scrape({ url: u });
    expect(scraper.runs.length).toBe(before + 1);
    expect(hit.markdown).toBe(fresh.markdown);
    expect((await recordedHit(hit.metadata?.scrapeId))?.fetchedAt).toBe(
      scraper.entries.get(scrapeCacheKey(ScrapeRequest.parse({ url: u })))!.fetchedAt,
    );
  });
});

describe('gateway: hot copies disabled', () => {
  it('WDS_GATEWAY_HOT_CACHE_MB=0 sends every scrape to the scraper', async () => {
    const stack = await startStack();
    try {
      serveBilling(stack);
      const scraper = new ScraperStandIn(stack);
      const gw = await startGateway(stack, { WDS_ADMIN_TOKEN: ADMIN, WDS_GATEWAY_HOT_CACHE_MB: '0' });
      await scraper.consumeHits(stack);
      try {
        const team = await call(gw.url, 'POST', '/admin/v1/teams', { token: ADMIN, json: { name: 'cold' } });
        const u = `https://example.com/${randomUUID()}`;
        for (let i = 0; i < 3; i++) {
          const res = await call(gw.url, 'POST', '/v2/scrape', { token: team.body.apiKey, json: { url: u } });
          expect(res.status).toBe(200);
        }
        expect(scraper.runs.length).toBe(3);
        expect(scraper.recorded).toEqual([]);
      } finally {
        await gw.stop();
      }
    } finally {
      await stack.stop();
    }
  });
});
