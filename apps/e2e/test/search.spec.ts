import { randomBytes } from 'node:crypto';
import type { RunningSearxng } from '@wds/local-infra';
import {
  FIXTURE_TEXT,
  SITE_TREE,
  startFixtureSite,
  startSearchFixtureBackend,
  startTestSearxng,
  type FixtureSite,
  type SearchFixtureBackend,
  type SearchFixtureEntry,
} from '@wds/testing';
import { callApi } from './support/http';
import { pythonSdk, type PythonSdk } from './support/python-sdk';
import { startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// POST /v2/search end to end: the stack as `npm start` runs it, pointed (WDS_SEARXNG_URL) at a real
// SearXNG whose only engines ask a fixture search backend on 127.0.0.1; results on the fixture site
// are scraped through the scraper. Both official SDKs' `search`, and the raw HTTP answers.

const READY_TIMEOUT_MS = 300_000;
const KEY = `e2e-search-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

function corpus(site: string): SearchFixtureEntry[] {
  return [
    {
      kind: 'web',
      url: `${site}/article`,
      title: 'Kettle back-pressure article',
      content: 'Why a kettle queue needs back-pressure',
    },
    {
      kind: 'web',
      url: 'https://github.com/acme/kettle',
      title: 'acme/kettle on GitHub',
      content: 'kettle source',
    },
    {
      kind: 'web',
      url: 'https://arxiv.org/abs/2401.00001',
      title: 'Kettle dynamics (paper)',
      content: 'kettle',
    },
    {
      kind: 'web',
      url: 'https://example.org/kettle-manual.pdf',
      title: 'Kettle manual PDF',
      content: 'kettle',
    },
    // Only a time range longer than a month, or none, returns it.
    {
      kind: 'web',
      url: 'https://old.example.org/kettle',
      title: 'Kettle of 2019',
      content: 'kettle',
      ageHours: 24 * 400,
    },
    {
      kind: 'web',
      url: 'https://adult.example.org/kettle',
      title: 'Kettle (adult)',
      content: 'kettle',
      adult: true,
    },
    ...SITE_TREE.map((p, i) => ({
      kind: 'web' as const,
      url: `${site}${p}`,
      title: `Kettle guide ${i}`,
      content: 'kettle',
    })),
    { kind: 'web', url: 'magnet:?xt=urn:btih:kettle', title: 'Kettle torrent', content: 'kettle' },
    {
      kind: 'news',
      url: 'https://news.example.org/kettle-recall',
      title: 'Kettle recall announced',
      content: 'A kettle recall',
    },
    {
      kind: 'images',
      url: 'https://images.example.org/kettle',
      title: 'A steel kettle',
      img: 'https://images.example.org/kettle.jpg',
    },
  ];
}

describe('web search through SearXNG (both SDKs)', () => {
  let site: FixtureSite;
  let backend: SearchFixtureBackend;
  let searxng: RunningSearxng | undefined;
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let sdk: PythonSdk;

  const search = (body: unknown, key = KEY) =>
    callApi(stack.url, 'POST', '/v2/search', { key, body, timeoutMs: 120_000 });
  const remainingCredits = async () => {
    const res = await callApi(stack.url, 'GET', '/v2/team/credit-usage', { key: KEY });
    expect(res.status).toBe(200);
    return res.body.data.remainingCredits as number;
  };
  /** The usage of a request is reported in batches: waits until the balance stops moving. */
  const settledCredits = async () => {
    let last = await remainingCredits();
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const now = await remainingCredits();
      if (now === last) return now;
      last = now;
    }
    return last;
  };

  beforeAll(async () => {
    sdk = await pythonSdk();
    site = await startFixtureSite();
    backend = await startSearchFixtureBackend(corpus(site.url));
    searxng = await startTestSearxng(backend);
    e2e = await startSiteStack({
      name: 'search',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      adminToken: ADMIN_TOKEN,
      sites: [site],
      env: {
        WDS_START_TIMEOUT_MS: String(READY_TIMEOUT_MS),
        WDS_SEARXNG_URL: searxng.url,
        WDS_BROWSER_PROCESSES: '1',
      },
    });
    stack = e2e.stack;
  }, 600_000 + READY_TIMEOUT_MS);

  afterAll(async () => {
    await e2e?.stop();
    await searxng?.stop();
    await backend?.close();
    await site?.close();
  }, 30_000);

  it('JS SDK: web results with positions; the engine was asked once', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    backend.requests.length = 0;
    const out = await client.search('kettle', { limit: 3 });
    expect(out.web).toHaveLength(3);
    expect(out.web!.map((r: any) => r.position)).toEqual([1, 2, 3]);
    expect(out.web![0]).toMatchObject({
      url: `${site.url}/article`,
      title: 'Kettle back-pressure article',
      description: 'Why a kettle queue needs back-pressure',
    });
    expect(out.news).toBeUndefined();
    expect(backend.requests).toEqual([expect.objectContaining({ kind: 'web', q: 'kettle', page: 1 })]);
  }, 120_000);

  it('JS SDK: web, news and images at once; scrapeOptions scrape each web and news result', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    const out = await client.search('back-pressure kettle', {
      limit: 2,
      sources: ['web', 'news', 'images'],
      scrapeOptions: { formats: ['markdown'], maxAge: 0 },
    });
    const article = out.web!.find((r: any) => r.url === `${site.url}/article`) as any;
    expect(article.markdown).toContain(FIXTURE_TEXT.articleLead);
    expect(article.metadata).toMatchObject({ statusCode: 200, scrapeId: expect.any(String) });
    expect(out.news).toEqual([
      expect.objectContaining({
        url: 'https://news.example.org/kettle-recall',
        title: 'Kettle recall announced',
        position: 1,
      }),
    ]);
    expect(out.images).toEqual([
      expect.objectContaining({
        url: 'https://images.example.org/kettle',
        imageUrl: 'https://images.example.org/kettle.jpg',
        title: 'A steel kettle',
        position: 1,
      }),
    ]);
    // The result off the fixture site could not be fetched here: named in the warning, kept unscraped.
    expect(out.warning).toMatch(/could not be scraped: https:\/\/(github\.com|news\.example\.org)/);
    // A scraped result is a scrape job of its own.
    const stored = await callApi(stack.url, 'GET', `/v2/scrape/${article.metadata.scrapeId}`, { key: KEY });
    expect(stored.status).toBe(200);
    expect(stored.body.data.markdown).toBe(article.markdown);
  }, 180_000);

  it('filters: domains, categories, time range, country and safe search reach the engine and the results', async () => {
    backend.requests.length = 0;
    const filtered = await search({
      query: 'kettle',
      limit: 20,
      tbs: 'qdr:m',
      country: 'DE',
      safe: true,
      excludeDomains: ['127.0.0.1'],
    });
    expect(filtered.status).toBe(200);
    const urls = filtered.body.data.web.map((r: any) => r.url);
    expect(urls).toEqual(
      expect.arrayContaining(['https://github.com/acme/kettle', 'https://arxiv.org/abs/2401.00001']),
    );
    expect(urls).not.toContain('https://old.example.org/kettle');
    expect(urls).not.toContain('https://adult.example.org/kettle');
    expect(urls.some((u: string) => u.startsWith(site.url))).toBe(false);
    expect(backend.requests[0]).toMatchObject({ lang: 'de', hours: 24 * 30, safe: 'strict' });
    expect(backend.requests[0].q).toBe('kettle -site:127.0.0.1');

    const categorised = await search({ query: 'kettle', limit: 10, categories: ['github', 'pdf'] });
    expect(categorised.body.data.web).toEqual([
      expect.objectContaining({ url: 'https://github.com/acme/kettle', category: 'github', position: 1 }),
      expect.objectContaining({ url: 'https://example.org/kettle-manual.pdf', category: 'pdf', position: 2 }),
    ]);

    const included = await search({ query: 'kettle', limit: 10, includeDomains: ['github.com'] });
    expect(included.body.data.web.map((r: any) => r.url)).toEqual(['https://github.com/acme/kettle']);
  }, 120_000);

  it('pages through the engine for a large limit, bills 2 credits per ten results, records the call', async () => {
    const before = await settledCredits();
    backend.requests.length = 0;
    const all = await search({ query: 'kettle', limit: 12 });
    expect(all.status).toBe(200);
    // The fixture pages by five: three pages for twelve (the non-http result is kept by default).
    expect(all.body.data.web).toHaveLength(12);
    expect(backend.requests.map((r) => r.page)).toEqual([1, 2, 3]);
    expect(all.body.creditsUsed).toBe(4);
    expect(all.body.id).toEqual(expect.any(String));
    expect(await settledCredits()).toBe(before - 4);

    const valid = await search({ query: 'kettle', limit: 20, ignoreInvalidURLs: true });
    expect(valid.body.data.web.map((r: any) => r.url)).not.toContain('magnet:?xt=urn:btih:kettle');

    const activity = await callApi(stack.url, 'GET', '/v2/team/activity?endpoint=search&limit=100', {
      key: KEY,
    });
    expect(activity.status).toBe(200);
    expect(activity.body.data.map((a: any) => a.id)).toContain(all.body.id);
  }, 120_000);

  it('answers nothing found with a warning, and bad input with 400 at no charge', async () => {
    const none = await search({ query: 'zzzqqq' });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({
      success: true,
      data: { web: [] },
      warning: 'No search results found',
      creditsUsed: 0,
    });
    const before = await settledCredits();
    for (const body of [
      { query: '' },
      { query: 'kettle', tbs: 'cdr:1,cd_min:1/1/2024' },
      { query: 'kettle', limit: 1000 },
      { query: 'kettle', scrapeOptions: { formats: ['nope'] } },
    ]) {
      const res = await search(body);
      expect([body, res.status, res.body.code]).toEqual([body, 400, 'BAD_REQUEST']);
    }
    expect(await settledCredits()).toBe(before);
  }, 120_000);

  it('Python SDK: web and news results as its types', async () => {
    const out = (
      await sdk.run(
        `
        r = client().search("kettle", limit=3, sources=["web", "news"])
        emit({"web": [plain(x) for x in r.web], "news": [plain(x) for x in r.news], "warning": r.warning})
      `,
        { apiUrl: stack.url, apiKey: KEY, timeoutMs: 120_000 },
      )
    ).result;
    expect(out.web).toHaveLength(3);
    expect(out.web[0]).toMatchObject({ url: `${site.url}/article`, title: 'Kettle back-pressure article' });
    expect(out.news[0]).toMatchObject({
      url: 'https://news.example.org/kettle-recall',
      title: 'Kettle recall announced',
    });
    const scraped = (
      await sdk.run(
        `
        r = client().search("back-pressure", limit=1, scrape_options={"formats": ["markdown"]})
        emit(plain(r.web[0]))
      `,
        { apiUrl: stack.url, apiKey: KEY, timeoutMs: 120_000 },
      )
    ).result;
    expect(scraped.markdown).toContain(FIXTURE_TEXT.articleLead);
  }, 240_000);

  it('answers 503 when SearXNG is down, and charges nothing', async () => {
    const before = await settledCredits();
    await searxng!.stop();
    searxng = undefined;
    const res = await search({ query: 'kettle' });
    expect(res).toMatchObject({ status: 503, body: { success: false, code: 'SERVICE_UNAVAILABLE' } });
    expect(res.body.error).toMatch(/SearXNG.*unreachable/);
    expect(await settledCredits()).toBe(before);
  }, 120_000);
});
