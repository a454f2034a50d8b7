import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { request } from 'undici';
import { compileSchema } from '@wds/llm';
import { listenLocal, type LocalServer } from './support/http';
import { pythonSdk } from './support/python-sdk';
import { smallLocalModel, startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// The LLM formats and crawl params-preview through the whole stack as `npm start` runs it, with
// its embedded llama.cpp server (here SmolLM2-135M: plumbing, not quality), driven by both
// official SDKs. CPU-bound: generous timeouts.

const READY_TIMEOUT_MS = 300_000;
const KEY = `e2e-llm-${randomBytes(16).toString('hex')}`;
const PRODUCT = `<html><head><title>Blue Kettle</title></head><body><main><h1>Blue Kettle</h1>
<p>The Blue Kettle costs 25 dollars and is in stock.</p></main></body></html>`;
const PREVIEW_KEYS = [
  'url',
  'includePaths',
  'excludePaths',
  'maxDiscoveryDepth',
  'crawlEntireDomain',
  'allowExternalLinks',
  'allowSubdomains',
  'sitemap',
  'ignoreQueryParameters',
  'deduplicateSimilarURLs',
  'delay',
  'limit',
];

describe('LLM formats through the stack (Firecrawl JS and Python SDKs)', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: LocalServer;

  beforeAll(async () => {
    site = await listenLocal((req, res) => {
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (req.url === '/' || req.url === '/product') return html(PRODUCT);
      if (req.url === '/blog')
        return html(
          '<html><body><a href="/blog/a">A</a> <a href="/blog/b">B</a> <a href="/about">About</a></body></html>',
        );
      if (req.url?.startsWith('/blog/') || req.url === '/about')
        return html(`<html><body><h1>${req.url}</h1></body></html>`);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    e2e = await startSiteStack({
      name: 'llm',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      sites: [site],
      env: {
        WDS_BROWSER_ENABLED: 'false',
        ...smallLocalModel(256),
        // CPU-bound on a shared machine: no attempt is cut short.
        WDS_DOCS_ANSWER_TIMEOUT_MS: '600000',
        WDS_DOCS_SEARCH_TIMEOUT_MS: '600000',
        // Every service (docs-search indexes its docs at start) and the model must be up first.
        WDS_START_TIMEOUT_MS: '600000',
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
  });

  it('JS SDK: json with a zod schema, summary, and crawlParamsPreview', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    // The SDK's own zod (v3), as an application using the SDK would import it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { z } = require(
      path.join(require.resolve('@mendable/firecrawl-js'), '..', '..', 'node_modules', 'zod'),
    ) as typeof import('zod');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url, timeoutMs: 600_000 } as never);
    const schema = z.object({ name: z.string(), price: z.number() });
    const doc = await client.scrape(`${site.url}/product`, {
      formats: [{ type: 'json', schema }, 'summary'],
      timeout: 300_000,
    });
    expect(doc.json).toBeDefined();
    expect(
      compileSchema({
        type: 'object',
        properties: { name: { type: 'string' }, price: { type: 'number' } },
        required: ['name', 'price'],
      })(doc.json),
    ).toBe(true);
    expect(typeof doc.summary).toBe('string');
    expect(doc.summary!.length).toBeGreaterThan(0);
    expect(doc.markdown).toBeUndefined();
    expect(doc.metadata?.creditsUsed).toBe(9);

    const preview = await client.crawlParamsPreview(`${site.url}/`, 'Only the blog posts, at most 10 pages');
    expect(preview.url).toBe(`${site.url}/`);
    for (const k of Object.keys(preview)) expect([...PREVIEW_KEYS, 'warning']).toContain(k);
    if (preview.limit !== undefined) expect(Number.isInteger(preview.limit)).toBe(true);
    if (preview.delay !== undefined) expect(Number.isInteger(preview.delay)).toBe(true);
  }, 900_000);

  it('Python SDK: json with a schema, summary, and crawl_params_preview', async () => {
    const sdk = await pythonSdk();
    const run = await sdk.run(
      `
      c = client(timeout=600)
      doc = c.scrape(${JSON.stringify(`${site.url}/product`)}, formats=[{"type": "json", "schema": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "number"}}, "required": ["name", "price"]}}, "summary"], timeout=300000)
      p = c.crawl_params_preview(${JSON.stringify(`${site.url}/`)}, "Only the blog posts, at most 10 pages")
      emit({"json": doc.json, "summary": doc.summary, "preview": p})
      `,
      { apiUrl: stack.url, apiKey: KEY, timeoutMs: 900_000 },
    );
    const r = run.result as {
      json: Record<string, unknown>;
      summary: string;
      preview: Record<string, unknown>;
    };
    expect(typeof r.json.name).toBe('string');
    expect(typeof r.json.price).toBe('number');
    expect(r.summary.length).toBeGreaterThan(0);
    expect(r.preview).toBeDefined();
    if (r.preview.limit != null) expect(Number.isInteger(r.preview.limit)).toBe(true);
  }, 900_000);

  it('crawl and batch scrape with summary: every page gets it at 5 credits, tokens booked under crawl / batch_scrape', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url, timeoutMs: 600_000 } as never);
    // One page at a time: each page's model call then has its whole scrape timeout to itself instead
    // of queueing behind the others' at the port's concurrency cap (a CPU model under load).
    const batch = await client.batchScrape([`${site.url}/blog/a`, `${site.url}/blog/b`], {
      options: { formats: ['summary'], timeout: 300_000 },
      maxConcurrency: 1,
      pollInterval: 2,
      timeout: 1800,
    });
    expect(batch.status).toBe('completed');
    expect(batch.data).toHaveLength(2);
    const crawl = await client.crawl(`${site.url}/blog`, {
      limit: 2,
      maxConcurrency: 1,
      scrapeOptions: { formats: ['summary'], timeout: 300_000 },
      pollInterval: 2,
      timeout: 1800,
    });
    expect(crawl.status).toBe('completed');
    expect(crawl.data.length).toBeGreaterThanOrEqual(2);
    for (const doc of [...batch.data, ...crawl.data]) {
      expect(doc.warning ?? '').not.toMatch(/summary format failed/);
      expect(typeof doc.summary).toBe('string');
      expect(doc.summary!.length).toBeGreaterThan(0);
      // The page (1) plus the LLM format surcharge (4); the page's credit hold covered it.
      expect(doc.metadata?.creditsUsed).toBe(5);
    }
    expect(batch.creditsUsed).toBe(5 * batch.data.length);
    expect(crawl.creditsUsed).toBe(5 * crawl.data.length);

    // Each page's tokens are booked once under its job's endpoint (recorded asynchronously).
    const ids = (docs: { metadata?: { scrapeId?: string } }[]) =>
      docs.map((d) => d.metadata!.scrapeId!).sort();
    const want = [
      ...ids(batch.data).map((jobId) => ({ jobId, endpoint: 'batch_scrape' })),
      ...ids(crawl.data).map((jobId) => ({ jobId, endpoint: 'crawl' })),
    ];
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      const booked = async () =>
        (
          await db.query<{ jobId: string; endpoint: string; input: number; output: number }>(
            `SELECT job_id AS "jobId", endpoint, input_tokens::int AS input, output_tokens::int AS output
             FROM billing.token_events WHERE job_id = ANY($1::text[]) ORDER BY job_id`,
            [want.map((w) => w.jobId)],
          )
        ).rows;
      let rows = await booked();
      for (const end = Date.now() + 120_000; rows.length < want.length && Date.now() < end;) {
        await new Promise((r) => setTimeout(r, 500));
        rows = await booked();
      }
      expect(rows.map(({ jobId, endpoint }) => ({ jobId, endpoint }))).toEqual(
        [...want].sort((a, b) => (a.jobId < b.jobId ? -1 : 1)),
      );
      for (const r of rows) {
        expect(r.input).toBeGreaterThan(0);
        expect(r.output).toBeGreaterThan(0);
      }
      // The ledger took 5 credits per page, once per page (usage keys `<kind>:<jobId>:<page>`).
      const charged = async (kind: string, id: string) =>
        (
          await db.query<{ pages: number; credits: number }>(
            `SELECT count(*)::int AS pages, coalesce(sum(amount), 0)::int AS credits
             FROM billing.usage WHERE usage_key LIKE $1`,
            [`${kind}:${id}:%`],
          )
        ).rows[0];
      expect(await charged('batch', batch.id)).toEqual({
        pages: batch.data.length,
        credits: 5 * batch.data.length,
      });
      expect(await charged('crawl', crawl.id)).toEqual({
        pages: crawl.data.length,
        credits: 5 * crawl.data.length,
      });
    } finally {
      await db.end();
    }
  }, 1_800_000);

  it("docs search: the model's tokens go into the team's token usage", async () => {
    const get = async (p: string) => {
      const res = await fetch(`${stack.url}${p}`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as { periods: { llmTokens: { total: number } }[] };
    };
    // llmTokens: what the model actually spent (tokensUsed is the SDKs' credits × 15).
    const used = async () =>
      (await get('/v2/team/token-usage/historical')).periods.reduce((n, p) => n + p.llmTokens.total, 0);
    // Earlier cases' tokens are recorded asynchronously: wait until the total stops moving.
    let before = await used();
    for (let stable = 0; stable < 3;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await used();
      stable = now === before ? stable + 1 : 0;
      before = now;
    }
    // undici directly: fetch's 300 s headers timeout is shorter than a CPU model may take here.
    const res = await request(`${stack.url}/v2/support/docs-search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How is a webhook delivery signed?' }),
      headersTimeout: 900_000,
      bodyTimeout: 900_000,
    });
    expect(res.statusCode).toBe(200);
    const answer = (await res.body.json()) as { usage: { totalTokens: number }; warning?: string };
    // The embedded model answered (valid or not): only a failed or timed-out call spends nothing.
    expect(answer.usage.totalTokens).toBeGreaterThan(0);
    let after = before;
    for (const end = Date.now() + 60_000; after < before + answer.usage.totalTokens && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 250));
      after = await used();
    }
    expect(after - before).toBe(answer.usage.totalTokens);
  }, 900_000);
});
