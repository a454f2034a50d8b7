import { randomBytes } from 'node:crypto';
import { freePort } from '@wds/local-infra';
import { SITE_TREE, startFixtureSite, type FixtureSite } from '@wds/testing';
import { WebSocket } from 'ws';
import { callApi, listenLocal } from './support/http';
import { startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// Crawl and map through the whole stack (`npm start`): HTTP, the official SDK and its WebSocket watcher.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-crawl-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;
const BIG_PAGES = 14;
const BIG_PAGE_BYTES = 1_000_000;
/** JOB_STATUS_PAGE_BYTES: one status answer carries at most this much JSON. */
const STATUS_PAGE_BYTES = 10 * 1024 * 1024;
const HOUR_MS = 3600_000;

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

const sourceUrls = (docs: any[]): string[] => docs.map((d) => d.metadata.sourceURL);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every message of a watcher WebSocket until the server closes it; `onMessage` may act meanwhile. */
function watchSocket(
  url: string,
  key: string,
  onMessage?: (message: any) => void,
): Promise<{ messages: any[]; code: number }> {
  const ws = new WebSocket(url, key);
  const messages: any[] = [];
  return new Promise((resolve, reject) => {
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString());
      messages.push(message);
      onMessage?.(message);
    });
    ws.on('close', (code) => resolve({ messages, code }));
    ws.on('error', reject);
  });
}

describe('crawl and map through the stack', () => {
  let e2e: E2eStack | undefined;
  let site: FixtureSite;
  let big: Awaited<ReturnType<typeof startBigSite>>;
  let stack: StackProcess;
  /** WDS_PUBLIC_BASE_URL without its trailing slash: `localhost`, where the tests call `127.0.0.1`. */
  let publicBase: string;
  /** URLs the SDK watcher opened its WebSocket on (it polls instead when it cannot). */
  const socketsOpened: string[] = [];
  /** The SDK crawl of the big site (15 documents, two status pages), shared by the paging tests. */
  let bigCrawlId: string | undefined;
  /** The SDK crawl of the fixture site, completed, with its documents in completion order. */
  let siteCrawl: { id: string; urls: string[] } | undefined;

  const call = (method: string, route: string, body?: unknown, key = KEY) =>
    callApi(stack.url, method, route, { key, body });
  const waitDone = async (id: string, key = KEY) => {
    for (;;) {
      const s = await call('GET', `/v2/crawl/${id}?limit=1`, undefined, key);
      if (s.body.status !== 'scraping') return s.body;
      await sleep(200);
    }
  };
  const socketUrl = (id: string) => `${stack.url.replace(/^http/, 'ws')}/v2/crawl/${id}`;
  const sdk = async (apiKey = KEY) => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    return new Firecrawl({ apiKey, apiUrl: stack.url });
  };
  /** A team of the admin API; `flags` are set through PUT /admin/v1/teams/{teamId}/features. */
  const adminTeam = async (credits: number, flags: { enterprise?: boolean; zdr?: boolean } = {}) => {
    const created = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: `e2e-${randomBytes(4).toString('hex')}`, credits },
    });
    expect(created.status).toBe(201);
    if (flags.enterprise || flags.zdr) {
      const features = { enterprise: flags.enterprise ?? false, zeroDataRetention: flags.zdr ?? false };
      const set = await callApi(stack.url, 'PUT', `/admin/v1/teams/${created.body.teamId}/features`, {
        key: ADMIN_TOKEN,
        body: features,
      });
      expect(set).toMatchObject({ status: 200, body: { success: true, ...features } });
    }
    return created.body.apiKey as string;
  };

  beforeAll(async () => {
    site = await startFixtureSite();
    big = await startBigSite();
    const port = await freePort();
    publicBase = `http://localhost:${port}`;
    e2e = await startE2eStack({
      name: 'crawl',
      port,
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${big.port}`,
        // The trailing slash must not double the one before `v2`.
        WDS_PUBLIC_BASE_URL: `${publicBase}/`,
      },
    });
    stack = e2e.stack;
    // Node 20 has no global WebSocket (the SDK watcher would poll instead): give it `ws`, as
    // Node 22 would, recording each socket so a test can tell the watcher did not poll.
    (globalThis as { WebSocket?: unknown }).WebSocket = class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols);
        socketsOpened.push(url);
      }
    };
  }, READY_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    delete (globalThis as { WebSocket?: unknown }).WebSocket;
    await e2e?.stop();
    await site?.close();
    await big?.close();
  }, 30_000);

  it('runs crawl() of the official SDK over more than one status page, following `next`', async () => {
    const client = await sdk();
    const job = await client.crawl(big.url, { sitemap: 'skip', pollInterval: 1 });
    bigCrawlId = job.id;
    expect(job).toMatchObject({ status: 'completed', total: BIG_PAGES + 1, completed: BIG_PAGES + 1 });
    // The first status page holds about ten of these documents: the rest come from `next`.
    expect(job.data).toHaveLength(BIG_PAGES + 1);
    const urls = sourceUrls(job.data);
    expect(new Set(urls).size).toBe(BIG_PAGES + 1);
    expect(urls).toEqual(
      expect.arrayContaining([
        `${big.url}/`,
        ...Array.from({ length: BIG_PAGES }, (_, i) => `${big.url}/big/${i}`),
      ]),
    );
  }, 180_000);

  it('pages status within 10 MiB, each page full, `next` absolute from WDS_PUBLIC_BASE_URL', async () => {
    expect(bigCrawlId).toBeDefined();
    const id = bigCrawlId!;
    const first = await call('GET', `/v2/crawl/${id}`);
    expect(first.status).toBe(200);
    // The bound covers the whole answer, counts and `next` included.
    expect(first.bytes).toBeLessThanOrEqual(STATUS_PAGE_BYTES);
    const firstCount = first.body.data.length;
    expect(firstCount).toBeGreaterThan(1);
    expect(firstCount).toBeLessThan(BIG_PAGES + 1);
    expect(first.body.next).toBe(`${publicBase}/v2/crawl/${id}?skip=${firstCount}`);
    const second = await call('GET', first.body.next);
    expect(second.status).toBe(200);
    expect(second.body.next).toBeNull();
    // Full: the next document (and its comma) would have taken the first page over the bound.
    const nextDocumentBytes = Buffer.byteLength(JSON.stringify(second.body.data[0]));
    expect(first.bytes + 1 + nextDocumentBytes).toBeGreaterThan(STATUS_PAGE_BYTES);
    const urls = sourceUrls([...first.body.data, ...second.body.data]);
    expect(urls).toHaveLength(BIG_PAGES + 1);
    expect(new Set(urls).size).toBe(BIG_PAGES + 1);
  }, 60_000);

  it('runs crawl() of the SDK on the fixture site; robots.txt blocks are listed by getCrawlErrors', async () => {
    const client = await sdk();
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
    siteCrawl = { id: job.id!, urls: sourceUrls(job.data) };
  }, 90_000);

  it("serves each crawl page's scrapeId as a scrape of its own (GET /v2/scrape/{id}), to its team only", async () => {
    // ADR 0022: crawl and batch pages keep the scraper's job row, so their scrapeId leads somewhere.
    expect(siteCrawl).toBeDefined();
    const all = await call('GET', `/v2/crawl/${siteCrawl!.id}`);
    const docs = all.body.data.slice(0, 3);
    expect(docs.length).toBe(3);
    for (const doc of docs) {
      expect(doc.metadata.scrapeId).toEqual(expect.any(String));
      const stored = await call('GET', `/v2/scrape/${doc.metadata.scrapeId}`);
      expect(stored.status).toBe(200);
      expect(stored.body.data.markdown).toBe(doc.markdown);
      expect(stored.body.data.metadata.sourceURL).toBe(doc.metadata.sourceURL);
    }
    const other = await adminTeam(10);
    const foreign = await call('GET', `/v2/scrape/${docs[0].metadata.scrapeId}`, undefined, other);
    expect(foreign.status).toBe(403);
  }, 60_000);

  it('answers `limit` with at most that many documents and a `next` past them, `skip` skips', async () => {
    expect(siteCrawl).toBeDefined();
    const { id } = siteCrawl!;
    const all = await call('GET', `/v2/crawl/${id}`);
    const urls = sourceUrls(all.body.data);
    expect(urls.length).toBeGreaterThan(4);
    expect(all.body.next).toBeNull();

    const limited = await call('GET', `/v2/crawl/${id}?limit=2`);
    expect(sourceUrls(limited.body.data)).toEqual(urls.slice(0, 2));
    const next = new URL(limited.body.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${publicBase}/v2/crawl/${id}`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ skip: '2', limit: '2' });
    const following = await call('GET', limited.body.next);
    expect(sourceUrls(following.body.data)).toEqual(urls.slice(2, 4));

    const skipped = await call('GET', `/v2/crawl/${id}?skip=3`);
    expect(sourceUrls(skipped.body.data)).toEqual(urls.slice(3));
    expect(skipped.body.next).toBeNull();
    const tail = await call('GET', `/v2/crawl/${id}?skip=${urls.length - 1}&limit=5`);
    expect(sourceUrls(tail.body.data)).toEqual(urls.slice(-1));
    expect(tail.body.next).toBeNull();
  }, 60_000);

  it('gives `next` while the crawl runs; following it reads every document once, then null', async () => {
    const before = Date.now();
    const created = await call('POST', '/v2/crawl', {
      url: site.url,
      limit: 4,
      sitemap: 'skip',
      delay: 2,
      scrapeOptions: { maxAge: 0 },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    expect(created.body.url).toBe(`${publicBase}/v2/crawl/${id}`);
    let mid = await call('GET', `/v2/crawl/${id}`);
    while (mid.body.data.length === 0) {
      expect(mid.body.status).toBe('scraping');
      await sleep(100);
      mid = await call('GET', `/v2/crawl/${id}`);
    }
    // With 2 s between pages, the first document arrives long before the fourth.
    expect(mid.body.status).toBe('scraping');
    expect(mid.body.next).toBe(`${publicBase}/v2/crawl/${id}?skip=${mid.body.data.length}`);
    const expiresAt = Date.parse(mid.body.expiresAt);
    expect(new Date(expiresAt).toISOString()).toBe(mid.body.expiresAt);
    // WDS_CRAWL_RETENTION_HOURS defaults to 24.
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * HOUR_MS - 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS + 60_000);

    const docs = [...mid.body.data];
    let page = mid.body;
    let reads = 0;
    while (page.next) {
      expect(++reads).toBeLessThan(200);
      page = (await call('GET', page.next)).body;
      docs.push(...page.data);
    }
    expect(page.status).toBe('completed');
    expect(page.next).toBeNull();
    expect(docs).toHaveLength(4);
    expect(new Set(sourceUrls(docs)).size).toBe(4);
    const final = await call('GET', `/v2/crawl/${id}`);
    expect(final.body).toMatchObject({ status: 'completed', total: 4, completed: 4, next: null });
    expect(sourceUrls(final.body.data)).toEqual(sourceUrls(docs));
  }, 90_000);

  it('streams a crawl over the SDK watcher WebSocket', async () => {
    const client = await sdk();
    const started = await client.startCrawl(site.url, { limit: 5, sitemap: 'skip' });
    const watcher = client.watcher(started.id, { kind: 'crawl', pollInterval: 1, timeout: 60 });
    const documents: unknown[] = [];
    watcher.on('document', (d) => documents.push(d));
    const done = new Promise<any>((resolve) => watcher.on('done', resolve));
    await watcher.start();
    const final = await done;
    expect(final.status).toBe('completed');
    expect(documents).toHaveLength(5);
    expect(socketsOpened).toContain(socketUrl(started.id));
  }, 60_000);

  it('speaks the watcher protocol on the WebSocket (API key as subprotocol): catchup, documents, done', async () => {
    const created = await call('POST', '/v2/crawl', { url: site.url, limit: 4, sitemap: 'skip' });
    const { messages, code } = await watchSocket(socketUrl(created.body.id), KEY);
    expect(code).toBe(1000);
    expect(messages[0]).toMatchObject({ type: 'catchup', data: { status: expect.any(String) } });
    // Pages stored before the socket opened come in the catch-up, the later ones one by one.
    const streamed = [
      ...messages[0].data.data,
      ...messages.filter((m) => m.type === 'document').map((m) => m.data),
    ];
    expect(new Set(sourceUrls(streamed)).size).toBe(4);
    expect(messages.at(-1)).toMatchObject({
      type: 'done',
      data: { status: 'completed', total: 4, completed: 4 },
    });
    const refused = new WebSocket(socketUrl(created.body.id), 'wrong-key-123');
    const status = await new Promise<number>((resolve) =>
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(401);
  }, 60_000);

  it('catches a late watcher up with the stored documents and the real status', async () => {
    expect(siteCrawl).toBeDefined();
    const { id, urls } = siteCrawl!;
    const { messages } = await watchSocket(socketUrl(id), KEY);
    expect(messages.map((m) => m.type)).toEqual(['catchup', 'done']);
    expect(messages[0].data).toMatchObject({
      status: 'completed',
      total: urls.length,
      completed: urls.length,
    });
    expect(sourceUrls(messages[0].data.data)).toEqual(urls);

    // The SDK ends its watch on that catch-up, with every document.
    const client = await sdk();
    const watcher = client.watcher(id, { kind: 'crawl', pollInterval: 1, timeout: 60 });
    const documents: any[] = [];
    watcher.on('document', (d) => documents.push(d));
    const done = new Promise<any>((resolve) => watcher.on('done', resolve));
    await watcher.start();
    expect((await done).status).toBe('completed');
    expect(sourceUrls(documents).sort()).toEqual([...urls].sort());
    expect(socketsOpened).toContain(socketUrl(id));
  }, 60_000);

  it('catches a late watcher of a crawl larger than 10 MB up, then streams the rest', async () => {
    expect(bigCrawlId).toBeDefined();
    const id = bigCrawlId!;
    const { messages } = await watchSocket(socketUrl(id), KEY);
    // The SDK would stop at a final status in the catch-up, so it says scraping until all is sent.
    expect(messages[0]).toMatchObject({ type: 'catchup', data: { status: 'scraping' } });
    expect(messages[0].data.data.length).toBeGreaterThan(1);
    const documents = messages.filter((m) => m.type === 'document').map((m) => m.data);
    expect(documents.length).toBeGreaterThan(0);
    const urls = sourceUrls([...messages[0].data.data, ...documents]);
    expect(new Set(urls).size).toBe(BIG_PAGES + 1);
    expect(urls).toHaveLength(BIG_PAGES + 1);
    expect(messages.at(-1)).toMatchObject({ type: 'done', data: { status: 'completed' } });

    const client = await sdk();
    const watcher = client.watcher(id, { kind: 'crawl', pollInterval: 1, timeout: 60 });
    const seen: any[] = [];
    watcher.on('document', (d) => seen.push(d));
    const done = new Promise<any>((resolve) => watcher.on('done', resolve));
    await watcher.start();
    expect((await done).status).toBe('completed');
    expect(new Set(sourceUrls(seen)).size).toBe(BIG_PAGES + 1);
  }, 90_000);

  it('ends the WebSocket of a cancelled crawl with `cancelled`, which the SDK reports as done', async () => {
    const created = await call('POST', '/v2/crawl', { url: site.url, delay: 2, sitemap: 'skip' });
    const id = created.body.id;
    const client = await sdk();
    const watcher = client.watcher(id, { kind: 'crawl', pollInterval: 1, timeout: 60 });
    const sdkDone = new Promise<any>((resolve) => watcher.on('done', resolve));
    // start() settles only when the watch ends, which the cancel below causes.
    const watching = watcher.start();
    let cancelled: Promise<unknown> | undefined;
    const raw = await watchSocket(socketUrl(id), KEY, (m) => {
      if (m.type === 'catchup') cancelled = call('DELETE', `/v2/crawl/${id}`);
    });
    expect(((await cancelled) as { body: unknown }).body).toEqual({ success: true, status: 'cancelled' });
    expect(raw.code).toBe(1000);
    expect(raw.messages.at(-1)).toMatchObject({ type: 'cancelled', data: { status: 'cancelled' } });
    expect((await sdkDone).status).toBe('cancelled');
    await watching;
  }, 60_000);

  it('ends the WebSocket of a crawl that fails (out of credits) with an `error` message', async () => {
    const poorKey = await adminTeam(2);
    // `basic`: a page holds 1 credit (with `auto` it holds 5, and a crawl needs a page's hold to
    // start), so this crawl starts, scrapes two pages and then runs out.
    const created = await call(
      'POST',
      '/v2/crawl',
      { url: site.url, sitemap: 'skip', delay: 1, scrapeOptions: { maxAge: 0, proxy: 'basic' } },
      poorKey,
    );
    expect(created.status).toBe(200);
    const { messages, code } = await watchSocket(socketUrl(created.body.id), poorKey);
    expect(code).toBe(1000);
    expect(messages[0].type).toBe('catchup');
    expect(messages.at(-1)).toEqual({ type: 'error', error: expect.stringMatching(/Insufficient credits/) });
    expect((await call('GET', `/v2/crawl/${created.body.id}`, undefined, poorKey)).body.status).toBe(
      'failed',
    );
  }, 60_000);

  it('refuses enterprise and zero-data-retention options to other teams, runs them for enabled ones', async () => {
    const refused = async (body: object, key: string) => {
      const res = await call('POST', '/v2/crawl', { url: site.url, ...body }, key);
      expect(res.status).toBe(403);
      expect(res.body.success).toBe(false);
    };
    await refused({ ignoreRobotsTxt: true }, KEY);
    await refused({ robotsUserAgent: 'E2eBot/1.0' }, KEY);
    await refused({ zeroDataRetention: true }, KEY);
    const enterpriseKey = await adminTeam(1000, { enterprise: true });
    await refused({ zeroDataRetention: true }, enterpriseKey);
    const zdrKey = await adminTeam(1000, { zdr: true });
    await refused({ robotsUserAgent: 'E2eBot/1.0' }, zdrKey);

    const robots = await call(
      'POST',
      '/v2/crawl',
      { url: site.url, ignoreRobotsTxt: true, robotsUserAgent: 'E2eBot/1.0', limit: 50 },
      enterpriseKey,
    );
    expect(robots.status).toBe(200);
    expect(await waitDone(robots.body.id, enterpriseKey)).toMatchObject({ status: 'completed' });
    const robotsData = await call('GET', `/v2/crawl/${robots.body.id}`, undefined, enterpriseKey);
    expect(sourceUrls(robotsData.body.data)).toContain(`${site.url}/private/secret`);

    const before = Date.now();
    const zdr = await call(
      'POST',
      '/v2/crawl',
      { url: site.url, zeroDataRetention: true, limit: 3, sitemap: 'skip' },
      zdrKey,
    );
    expect(zdr.status).toBe(200);
    const zdrDone = await waitDone(zdr.body.id, zdrKey);
    expect(zdrDone).toMatchObject({ status: 'completed', completed: 3 });
    // Zero-data-retention crawls are kept WDS_CRAWL_ZDR_RETENTION_MINUTES (60), not 24 hours.
    expect(Date.parse(zdrDone.expiresAt)).toBeGreaterThanOrEqual(before + HOUR_MS - 60_000);
    expect(Date.parse(zdrDone.expiresAt)).toBeLessThanOrEqual(Date.now() + HOUR_MS + 60_000);
  }, 120_000);

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
    // This stack runs without a model (WDS_LOCAL_MODEL=none): prompts are refused clearly.
    const prompt = await call('POST', '/v2/crawl', { url: site.url, prompt: 'only the docs' });
    expect(prompt.status).toBe(400);
    expect(prompt.body.error).toMatch(/no LLM provider is configured/);
    expect((await call('POST', '/v2/crawl/params-preview', { url: site.url, prompt: 'docs' })).status).toBe(
      400,
    );
  }, 60_000);

  it('maps a site from its sitemaps and links (SDK map)', async () => {
    const client = await sdk();
    const mapped = await client.map(site.url, { limit: 100 });
    const paths = mapped.links.map((l) => new URL(l.url).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/', '/article', ...SITE_TREE]));
    expect(new Set(mapped.links.map((l) => l.url)).size).toBe(mapped.links.length);
    const searched = await client.map(site.url, { search: 'blog', limit: 2 });
    expect(searched.links.map((l) => new URL(l.url).pathname)).toEqual(['/blog', '/blog/first-post']);
  }, 60_000);
});
