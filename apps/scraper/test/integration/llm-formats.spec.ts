import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACTIVITY, STREAMS, type ActivityBatch } from '@wds/contracts';
import type { RunningModelServer } from '@wds/local-infra';
import { compileSchema } from '@wds/llm';
import { MODEL_SERVER_START_TIMEOUT_MS, startTestModelServer } from '@wds/testing';
import { CLEAN_TOO_LONG_WARNING, keepsStructure } from '../../src/scrape/formats/llm/clean-content';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

// A real llama.cpp server with SmolLM2-135M: plumbing (schema-valid output, verbatim highlights,
// credits, token usage, warnings), not answer quality (see npm run bench:llm for that).
jest.setTimeout(600_000);

const PRODUCT = `<html><head><title>Blue Kettle</title></head><body>
<div class="cookie">We use cookies. Accept all cookies?</div>
<main><h1>Blue Kettle</h1>
<p>The Blue Kettle costs 25 dollars. It is in stock.</p>
<h2>Details</h2><p>It holds 1.7 litres and boils water in three minutes.</p>
<pre><code>model: BK-17</code></pre>
</main></body></html>`;

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
};

describe('scraper: LLM formats against a real model server', () => {
  let model: RunningModelServer;
  let scraper: ScraperHarness;
  let server: http.Server;
  let base: string;
  const hits: Record<string, number> = {};
  const tokens: ActivityBatch['tokens'] = [];
  let consumer: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    model = await startTestModelServer({ contextTokens: 4096, parallel: 2 });
    server = http.createServer((req, res) => {
      hits[req.url ?? ''] = (hits[req.url ?? ''] ?? 0) + 1;
      if (req.url === '/product') return res.writeHead(200, { 'content-type': 'text/html' }).end(PRODUCT);
      // The page answers late, so a scrape with the minimum timeout leaves the model no time at all.
      if (req.url === '/product-late') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(PRODUCT), 900);
        return;
      }
      if (req.url === '/long') {
        const body = Array.from(
          { length: 200 },
          (_, i) => `<p>Paragraph ${i} about kettles and tea.</p>`,
        ).join('');
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><body><h1>Long</h1>${body}</body></html>`);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    scraper = await startScraper(scraperEnv());
    // The recorder creates the stream on its first publish; the test's consumer needs it now.
    await scraper.client.ensureStreams([STREAMS.WDS_ACTIVITY_V1]);
    consumer = await scraper.client.consume(
      ACTIVITY,
      {
        stream: STREAMS.WDS_ACTIVITY_V1.name,
        durable: `test-${randomUUID()}`,
        filterSubject: ACTIVITY.subject,
        ackWaitMs: 30_000,
        maxDeliver: 3,
      },
      async (batch) => {
        tokens.push(...batch.tokens);
      },
    );
  }, MODEL_SERVER_START_TIMEOUT_MS);

  afterAll(async () => {
    await consumer?.stop();
    await scraper?.stop();
    await model?.stop();
    await new Promise((r) => server?.close(r));
  });

  /** A scraper on the test's model server and fixture site (the suite's: 400 output tokens). */
  const scraperEnv = (over: Record<string, string> = {}) => ({
    WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
    WDS_BROWSER_ENABLED: 'false',
    WDS_LLM_BASE_URL: model.baseUrl,
    WDS_LLM_MODEL: model.modelName,
    WDS_LLM_CONTEXT_TOKENS: '2048',
    WDS_LLM_MAX_OUTPUT_TOKENS: '400',
    ...over,
  });

  const scrape = (teamId: string, body: Record<string, unknown>) =>
    scraper.scrape(teamId, { url: `${base}/product`, timeout: 300_000, ...body });

  it('json with a schema: schema-valid data, 5 credits, tokens reported; markdown only when asked', async () => {
    const teamId = `team-${randomUUID()}`;
    const r = await scrape(teamId, {
      formats: [{ type: 'json', schema: SCHEMA, prompt: 'Name and price of the product' }],
    });
    expect(r.document.warning).toBeUndefined();
    expect(compileSchema(SCHEMA)(r.document.json)).toBe(true);
    expect(r.document.markdown).toBeUndefined();
    expect(r.creditsUsed).toBe(5);
    expect(r.cacheHit).toBe(false);
    await waitFor(() => tokens.some((t) => t.teamId === teamId));
    const t = tokens.find((x) => x.teamId === teamId)!;
    expect(t).toMatchObject({
      endpoint: 'scrape',
      model: model.modelName,
      eventId: expect.stringContaining(':llm:json'),
    });
    expect(t.inputTokens).toBeGreaterThan(30);
    expect(t.outputTokens).toBeGreaterThan(0);
  });

  it('json root arrays and bare property maps (api-v2 §4.2)', async () => {
    // Bounded strings: the 135M test model, fed a page whose links carry the fixture site's random
    // port, now and then loops inside one unbounded string until its token cap (invalid JSON, seen
    // once in a CI run); the case is about the root array's wrapping, not about that model.
    const arr = await scrape('t', {
      formats: [
        { type: 'json', schema: { type: 'array', items: { type: 'string', maxLength: 80 }, maxItems: 3 } },
      ],
    });
    // A model that missed the deadline (CPU contention) says so here rather than as a bare mismatch.
    expect(arr.document.warning).toBeUndefined();
    expect(Array.isArray(arr.document.json)).toBe(true);
    const bare = await scrape('t', { formats: [{ type: 'json', schema: { name: { type: 'string' } } }] });
    expect(typeof (bare.document.json as { name: unknown }).name).toBe('string');
  });

  it('summary, question and highlights together: verbatim highlights, 1 + 3 × 4 credits', async () => {
    const r = await scrape('t', {
      formats: [
        'markdown',
        'summary',
        { type: 'question', question: 'How much does the kettle cost?' },
        { type: 'highlights', query: 'price' },
      ],
    });
    expect(r.document.warning ?? '').not.toMatch(/failed/);
    expect(typeof r.document.summary).toBe('string');
    expect(r.document.summary!.length).toBeGreaterThan(0);
    expect(typeof r.document.answer).toBe('string');
    const md = r.document.markdown!;
    if (r.document.highlights !== undefined) {
      for (const line of r.document.highlights.split('\n')) expect(md).toContain(line);
    } else {
      expect(r.document.warning).toMatch(/highlights|Highlights/);
    }
    expect(r.creditsUsed).toBe(13);
  });

  it('onlyCleanContent keeps every heading and code block, and is skipped with a warning when too long', async () => {
    const plain = await scrape('t', { formats: ['markdown'] });
    const clean = await scrape('t', { formats: ['markdown'], onlyCleanContent: true });
    expect(keepsStructure(plain.document.markdown!, clean.document.markdown!)).toBe(true);
    const longPlain = await scrape('t', { url: `${base}/long`, formats: ['markdown'] });
    const longClean = await scrape('t', {
      url: `${base}/long`,
      formats: ['markdown'],
      onlyCleanContent: true,
    });
    expect(longClean.document.warning).toBe(CLEAN_TOO_LONG_WARNING);
    expect(longClean.document.markdown).toBe(longPlain.document.markdown);
    expect(longClean.creditsUsed).toBe(1);
  });

  it('zero data retention: every LLM format answers its warning, no model call, no LLM credits', async () => {
    const r = await scrape('t', {
      formats: ['markdown', 'summary', { type: 'json', schema: SCHEMA }],
      zeroDataRetention: true,
    });
    expect(r.document.summary).toBeUndefined();
    expect(r.document.json).toBeUndefined();
    expect(r.document.warning).toContain('The json format is not supported with zero data retention.');
    expect(r.document.warning).toContain('The summary format is not supported with zero data retention.');
    expect(r.creditsUsed).toBe(1);
  });

  it('an invalid json schema is refused before the page is fetched', async () => {
    const before = hits['/product'] ?? 0;
    await expect(
      scrape('t', {
        formats: [{ type: 'json', schema: { type: 'object', properties: { a: { type: 'nope' } } } }],
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(hits['/product'] ?? 0).toBe(before);
  });

  it('a model that misses the scrape deadline costs the format, not the page', async () => {
    const r = await scraper.scrape('t', {
      url: `${base}/product-late`,
      timeout: 1000,
      formats: ['markdown', 'summary'],
    });
    expect(r.document.markdown).toContain('Blue Kettle');
    expect(r.document.summary).toBeUndefined();
    expect(r.document.warning).toMatch(/The summary format failed/);
    expect(r.creditsUsed).toBe(1);
  });

  it("teams take turns for the model: one team's five scrapes do not hold back another team's", async () => {
    // A replica with one model slot: every format call queues for it.
    const narrow = await startScraper(
      scraperEnv({ WDS_LLM_MAX_OUTPUT_TOKENS: '64', WDS_LLM_CONCURRENCY: '1' }),
    );
    try {
      const finished: string[] = [];
      const summary = (name: string, teamId: string) =>
        narrow
          .scrape(teamId, { url: `${base}/product`, timeout: 300_000, maxAge: 0, formats: ['summary'] })
          .then((r) => {
            expect(r.document.summary).toBeTruthy();
            finished.push(name);
          });
      const a = `team-${randomUUID()}`;
      const calls = [0, 1, 2, 3, 4].map((i) => summary(`A${i}`, a));
      // Team A's calls are all queued (one runs) before team B asks.
      await new Promise((r) => setTimeout(r, 500));
      calls.push(summary('B0', `team-${randomUUID()}`));
      await Promise.all(calls);
      // First come first served, B0 would finish last; with turns it waits for one call of A's queue.
      expect(finished.indexOf('B0')).toBeLessThanOrEqual(2);
    } finally {
      await narrow.stop();
    }
  });
});

async function waitFor(check: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
