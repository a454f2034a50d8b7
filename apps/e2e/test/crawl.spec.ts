import { randomBytes } from 'node:crypto';
import { freePort } from '@wds/local-infra';
import { SITE_TREE, startFixtureSite, type FixtureSite } from '@wds/testing';
import { callApi, listenLocal } from './support/http';
import { startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// Crawl and map through the whole stack (`npm start`): HTTP, the official SDK and its WebSocket watcher.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-crawl-${randomBytes(16).toString('hex')}`;
const BIG_PAGES = 14;
const BIG_PAGE_BYTES = 1_000_000;

/** 14 pages of ~1 MB of text each, all linked from the home page: more than one 10 MB status page. */
function startBigSite() {
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(BIG_PAGE_BYTES / 27));
  return listenLocal((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const links = Array.from({ length: BIG_PAGES }, (_, i) => `<a href="/big/${i}">${i}</a>`).join(' ');
    res.writeHead(p === '/' || /^\/big\/\d+$/.test(p) ? 200 : 404, { 'content-type': 'text/html' });
    res.end(`<html><body><main><h1>${p}</h1>${p === '/' ? links : `<p>${filler}</p>`}</main></body></html>`);
  });
}

describe('crawl and map through the stack', () => {
  let e2e: E2eStack | undefined;
  let site: FixtureSite;
  let big: Awaited<ReturnType<typeof startBigSite>>;
  let stack: StackProcess;

  const call = (method: string, route: string, body?: unknown, key = KEY) =>
    callApi(stack.url, method, route, { key, body });
  const waitDone = async (id: string) => {
    for (;;) {
      const s = await call('GET', `/v2/crawl/${id}?limit=1`);
      if (s.body.status !== 'scraping') return s.body;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    site = await startFixtureSite();
    big = await startBigSite();
    e2e = await startE2eStack({
      name: 'crawl',
      port: await freePort(),
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${big.port}`,
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
    await big?.close();
  }, 30_000);

  it('runs crawl() of the official SDK to completion with auto-pagination', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    const job = await client.crawl(site.url, {
      limit: 50,
      scrapeOptions: { formats: ['markdown'] },
      pollInterval: 1,
    });
    expect(job.status).toBe('completed');
    expect(job.completed).toBe(job.total);
    expect(job.data).toHaveLength(job.completed);
    const paths = job.data.map((d) => new URL(d.metadata!.sourceURL!).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/', ...SITE_TREE]));
    const errors = await client.getCrawlErrors(job.id!);
    expect(errors.robotsBlocked).toContain(`${site.url}/private/secret`);
  }, 90_000);

  it('pages status by 10 MB with an absolute `next` until every document is read', async () => {
    const created = await call('POST', '/v2/crawl', {
      url: big.url,
      sitemap: 'skip',
      scrapeOptions: { maxAge: 0 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      success: true,
      id: expect.any(String),
      url: `${stack.url}/v2/crawl/${created.body.id}`,
    });
    const done = await waitDone(created.body.id);
    expect(done).toMatchObject({ status: 'completed', total: BIG_PAGES + 1, completed: BIG_PAGES + 1 });
    const first = await call('GET', `/v2/crawl/${created.body.id}`);
    expect(first.bytes).toBeLessThan(10.5 * 1024 * 1024);
    expect(first.body.data.length).toBeLessThan(BIG_PAGES + 1);
    expect(first.body.next).toMatch(new RegExp(`^${stack.url}/v2/crawl/${created.body.id}\\?skip=\\d+$`));
    const second = await call('GET', first.body.next);
    expect(first.body.data.length + second.body.data.length).toBe(BIG_PAGES + 1);
    expect(second.body.next).toBeNull();
  }, 90_000);

  // Node 20 has no global WebSocket (the SDK would poll instead): give it the `ws` class, as Node 22 would.
  it('streams a crawl over the SDK watcher WebSocket', async () => {
    const { WebSocket } = await import('ws');
    (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    const started = await client.startCrawl(site.url, { limit: 5, sitemap: 'skip' });
    const watcher = client.watcher(started.id, { kind: 'crawl', pollInterval: 1, timeout: 60 });
    const documents: unknown[] = [];
    watcher.on('document', (d) => documents.push(d));
    const done = new Promise<any>((resolve) => watcher.on('done', resolve));
    await watcher.start();
    const final = await done;
    expect(final.status).toBe('completed');
    expect(documents).toHaveLength(5);
    delete (globalThis as { WebSocket?: unknown }).WebSocket;
  }, 60_000);

  it('speaks the watcher protocol on the WebSocket (API key as subprotocol): catchup, documents, done', async () => {
    const { WebSocket } = await import('ws');
    const created = await call('POST', '/v2/crawl', { url: site.url, limit: 4, sitemap: 'skip' });
    const ws = new WebSocket(`${stack.url.replace(/^http/, 'ws')}/v2/crawl/${created.body.id}`, KEY);
    const messages: any[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    expect(messages[0]).toMatchObject({ type: 'catchup', data: { status: 'scraping' } });
    expect(messages.filter((m) => m.type === 'document')).toHaveLength(4);
    expect(messages.at(-1)).toMatchObject({
      type: 'done',
      data: { status: 'completed', total: 4, completed: 4 },
    });
    const refused = new WebSocket(
      `${stack.url.replace(/^http/, 'ws')}/v2/crawl/${created.body.id}`,
      'wrong-key-123',
    );
    const status = await new Promise<number>((resolve) =>
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(401);
  }, 60_000);

  it('cancels a running crawl (then 409), lists it while active, guards errors and ids', async () => {
    const created = await call('POST', '/v2/crawl', { url: site.url, delay: 2 });
    const id = created.body.id;
    const active = await call('GET', '/v2/crawl/active');
    expect(active.body.crawls).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, url: site.url })]),
    );
    expect((await call('DELETE', `/v2/crawl/${id}`)).body).toEqual({ success: true, status: 'cancelled' });
    expect((await call('DELETE', `/v2/crawl/${id}`)).status).toBe(409);
    expect((await call('GET', `/v2/crawl/${id}`)).body.status).toBe('cancelled');
    expect((await call('GET', `/v2/crawl/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await call('POST', '/v2/crawl', { url: site.url, includePaths: ['[a-'] })).status).toBe(400);
    expect((await call('POST', '/v2/crawl', { url: site.url, ignoreRobotsTxt: true })).status).toBe(403);
    const prompt = await call('POST', '/v2/crawl', { url: site.url, prompt: 'only the docs' });
    expect(prompt.status).toBe(503);
    expect(prompt.body.error).toMatch(/LLM/);
    expect((await call('POST', '/v2/crawl/params-preview', { url: site.url, prompt: 'docs' })).status).toBe(
      503,
    );
  }, 60_000);

  it('maps a site from its sitemaps and links (SDK map)', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    const mapped = await client.map(site.url, { limit: 100 });
    const paths = mapped.links.map((l) => new URL(l.url).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/', '/article', ...SITE_TREE]));
    expect(new Set(mapped.links.map((l) => l.url)).size).toBe(mapped.links.length);
    const searched = await client.map(site.url, { search: 'blog', limit: 2 });
    expect(searched.links.map((l) => new URL(l.url).pathname)).toEqual(['/blog', '/blog/first-post']);
  }, 60_000);
});
