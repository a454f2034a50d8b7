import { ScrapeRequest, ServiceError, type ScrapeRequestInput } from '@wds/contracts';
import { ProxyPool } from '@wds/outbound';
import type { BrowserEngine, RenderedPage, RenderPageRequest } from './browser-engine';
import {
  browserReasons,
  EngineSelector,
  isScriptRenderedShell,
  waterfall,
  type PageOutcome,
} from './engine-selection';
import type { FetchedPage, FetchEngine } from './fetch-engine';

const opts = (o: Partial<ScrapeRequestInput> = {}) =>
  ScrapeRequest.parse({ url: 'https://example.com/', ...o });

function fetched(html: string, status = 200): FetchedPage {
  return {
    url: 'https://example.com/',
    status,
    headers: { 'content-type': 'text/html' },
    body: Buffer.from(html),
    contentType: 'text/html',
    redirects: [],
    timings: { totalMs: 1 },
    proxyUsed: undefined,
  };
}

function rendered(html: string, status = 200): RenderedPage {
  return {
    status,
    finalUrl: 'https://example.com/',
    content: { html, scrapes: [] },
    actions: { screenshots: [], javascriptReturns: [], pdfs: [] },
    blockedRequests: { policy: 0, ads: 0 },
    ms: 5,
  };
}

class FakeFetch {
  calls = 0;
  constructor(
    private readonly answer: () => Promise<FetchedPage>,
    readonly proxies = { basic: new ProxyPool([]), enhanced: new ProxyPool([]) },
  ) {}
  fetch() {
    this.calls++;
    return this.answer();
  }
}

class FakeBrowser {
  calls: RenderPageRequest[] = [];
  constructor(private readonly answer: () => Promise<RenderedPage>) {}
  render(req: RenderPageRequest) {
    this.calls.push(req);
    return this.answer();
  }
}

const job = { teamId: 't', jobId: '00000000-0000-4000-8000-000000000000', zeroDataRetention: false };
const SHELL = '<html><body><nav>Menu</nav><div id="root"></div><script src="/app.js"></script></body></html>';

function selector(f: FakeFetch, b?: FakeBrowser, delay = 1000) {
  return new EngineSelector(f as unknown as FetchEngine, b as unknown as BrowserEngine | undefined, {
    waterfallDelayMs: delay,
  });
}

describe('engine selection', () => {
  it('names what needs a browser', () => {
    expect(browserReasons(opts())).toEqual([]);
    expect(
      browserReasons(
        opts({
          formats: ['markdown', { type: 'screenshot' }],
          actions: [{ type: 'scrape' }],
          waitFor: 10,
          mobile: true,
          location: { country: 'DE' },
          profile: { name: 'p' },
        }),
      ),
    ).toEqual(['actions', 'screenshot', 'waitFor', 'profile', 'mobile', 'location']);
  });

  it('detects script-rendered shells but not ordinary pages', () => {
    expect(isScriptRenderedShell(SHELL)).toBe(true);
    expect(isScriptRenderedShell('<html><body><div id="__next"></div><script>x</script></body></html>')).toBe(
      true,
    );
    expect(isScriptRenderedShell('<html><body><script>boot()</script></body></html>')).toBe(true);
    expect(
      isScriptRenderedShell(`<html><body><div id="root"><p>${'text '.repeat(20)}</p></div></body></html>`),
    ).toBe(false);
    expect(isScriptRenderedShell('<html><body><div id="root"></div></body></html>')).toBe(false);
    expect(
      isScriptRenderedShell(
        `<html><body><article>${'words '.repeat(30)}</article><script>a()</script></body></html>`,
      ),
    ).toBe(false);
  });

  it('uses the fetch engine alone for ordinary pages', async () => {
    const f = new FakeFetch(async () =>
      fetched('<html><body><p>Plenty of server-rendered text here for sure.</p></body></html>'),
    );
    const b = new FakeBrowser(async () => rendered('x'));
    const out = await selector(f, b).obtain(opts(), job, Date.now() + 5000);
    expect(out.engine).toBe('fetch');
    expect(b.calls).toHaveLength(0);
  });

  it('renders a script-rendered shell in the browser; keeps the fetched HTML with a warning if that fails', async () => {
    const f = new FakeFetch(async () => fetched(SHELL));
    const ok = await selector(f, new FakeBrowser(async () => rendered('<p>Rendered</p>'))).obtain(
      opts(),
      job,
      Date.now() + 5000,
    );
    expect(ok.engine).toBe('browser');
    expect(ok.page.body.toString()).toBe('<p>Rendered</p>');
    const down = new FakeBrowser(async () => {
      throw new ServiceError('SERVICE_UNAVAILABLE', 'No browser-pool replica is available');
    });
    const fallback = await selector(f, down).obtain(opts(), job, Date.now() + 5000);
    expect(fallback.engine).toBe('fetch');
    expect(fallback.warning).toMatch(/rendered by scripts.*No browser-pool replica/);
  });

  it('goes straight to the browser for browser-only features and passes their options', async () => {
    const f = new FakeFetch(async () => fetched('<p>x</p>'));
    const b = new FakeBrowser(async () => rendered('<p>r</p>'));
    await selector(f, b).obtain(
      opts({
        formats: [{ type: 'screenshot', fullPage: true }],
        actions: [{ type: 'click', selector: 'a' }],
      }),
      job,
      Date.now() + 5000,
    );
    expect(f.calls).toBe(0);
    expect(b.calls[0]).toMatchObject({
      screenshot: { fullPage: true },
      actions: [{ type: 'click', selector: 'a' }],
      blockAds: true,
      teamId: 't',
    });
  });

  it('renders through the proxy pools like the fetch engine: basic, enhanced, auto retry on a bot wall', async () => {
    const pools = {
      basic: new ProxyPool(['http://basic-1:8080', 'http://basic-2:8080']),
      enhanced: new ProxyPool(['http://u:p@enhanced:8080']),
    };
    const f = new FakeFetch(async () => fetched('<p>x</p>'), pools);
    const shot = { formats: [{ type: 'screenshot' as const }] };
    const b = new FakeBrowser(async () => rendered('<p>r</p>'));
    const basic = await selector(f, b).obtain(opts({ ...shot, proxy: 'basic' }), job, Date.now() + 5000);
    const enhanced = await selector(f, b).obtain(
      opts({ ...shot, proxy: 'enhanced' }),
      job,
      Date.now() + 5000,
    );
    expect(b.calls.map((c) => c.upstreamProxy)).toEqual(['http://basic-1:8080', 'http://u:p@enhanced:8080']);
    expect([basic.page.proxyUsed, enhanced.page.proxyUsed]).toEqual(['basic', 'enhanced']);

    const statuses = [403, 200]; // a bot wall through the basic proxy, not through the enhanced one
    const walled = new FakeBrowser(async () => rendered('<p>r</p>', statuses.shift()));
    const auto = await selector(f, walled).obtain(opts(shot), job, Date.now() + 5000);
    expect(walled.calls.map((c) => c.upstreamProxy)).toEqual([
      'http://basic-2:8080',
      'http://u:p@enhanced:8080',
    ]);
    expect(auto.page).toMatchObject({ status: 200, proxyUsed: 'enhanced' });

    const direct = new FakeBrowser(async () => rendered('<p>r</p>', 403));
    const none = await selector(new FakeFetch(async () => fetched('x')), direct).obtain(
      opts(shot),
      job,
      Date.now() + 5000,
    );
    expect(direct.calls).toHaveLength(1);
    expect(direct.calls[0].upstreamProxy).toBeUndefined();
    expect(none.page).toMatchObject({ status: 403, proxyUsed: undefined });
  });

  it('falls back to the browser when the fetch engine fails in a way a browser may not', async () => {
    const f = new FakeFetch(async () => {
      throw new ServiceError('UPSTREAM_FAILED', 'connection reset', { reason: 'network' });
    });
    const out = await selector(f, new FakeBrowser(async () => rendered('<p>r</p>'))).obtain(
      opts(),
      job,
      Date.now() + 5000,
    );
    expect(out.engine).toBe('browser');
    const dns = new FakeFetch(async () => {
      throw new ServiceError('UPSTREAM_FAILED', 'could not resolve host x', { reason: 'dns' });
    });
    const b = new FakeBrowser(async () => rendered('<p>r</p>'));
    await expect(selector(dns, b).obtain(opts(), job, Date.now() + 5000)).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
    });
    expect(b.calls).toHaveLength(0);
  });

  it('gives one clear error naming every engine when all fail', async () => {
    const f = new FakeFetch(async () => {
      throw new ServiceError('UPSTREAM_FAILED', 'TLS handshake failed', { reason: 'tls' });
    });
    const b = new FakeBrowser(async () => {
      throw new ServiceError(
        'UPSTREAM_FAILED',
        'The browser could not load the page (ERR_SSL_PROTOCOL_ERROR)',
      );
    });
    await expect(selector(f, b).obtain(opts(), job, Date.now() + 5000)).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message:
        'TLS handshake failed (also failed: browser engine: The browser could not load the page (ERR_SSL_PROTOCOL_ERROR))',
    });
  });

  it('races the next engine when the first is slow, first success wins', async () => {
    const slow: PageOutcome = { engine: 'fetch', page: fetched('slow') };
    const fast: PageOutcome = { engine: 'browser', page: fetched('fast') };
    const started = Date.now();
    const out = await waterfall(
      [
        { name: 'a', run: () => new Promise((r) => setTimeout(() => r(slow), 500)) },
        { name: 'b', run: async () => fast },
      ],
      50,
    );
    expect(out).toBe(fast);
    expect(Date.now() - started).toBeLessThan(400);
  });
});
