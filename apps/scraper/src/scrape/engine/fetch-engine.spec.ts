import { ProxyPool, type OutboundResponse } from '@wds/outbound';
import { FetchEngine, type FetchPageRequest, type HttpClient } from './fetch-engine';

type Call = Parameters<HttpClient['request']>[0];

function fakeHttp(statusByProxy: Record<string, number>): HttpClient & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    request: (req) => {
      calls.push(req);
      const status = statusByProxy[req.proxyUrl ?? 'direct'] ?? 200;
      const res: OutboundResponse = {
        url: req.url,
        status,
        headers: {},
        body: Buffer.from('<p>x</p>'),
        redirects: [],
        timings: { totalMs: 1 },
      };
      return Promise.resolve(res);
    },
  };
}

const request = (extra: Partial<FetchPageRequest> = {}): FetchPageRequest => ({
  url: 'https://example.com/',
  mobile: false,
  location: { country: 'US' },
  skipTlsVerification: true,
  proxy: 'auto',
  deadline: Date.now() + 10_000,
  ...extra,
});

const engine = (http: HttpClient, basic: string[], enhanced: string[]) =>
  new FetchEngine({
    http,
    basicProxies: new ProxyPool(basic),
    enhancedProxies: new ProxyPool(enhanced),
    maxBytes: 1000,
  });

describe('FetchEngine', () => {
  it('auto: retries a 403 through an enhanced proxy and reports it', async () => {
    const http = fakeHttp({ 'http://basic:1': 403, 'http://enh:1': 200 });
    const page = await engine(http, ['http://basic:1'], ['http://enh:1']).fetch(request());
    expect(http.calls.map((c) => c.proxyUrl)).toEqual(['http://basic:1', 'http://enh:1']);
    expect(page.status).toBe(200);
    expect(page.proxyUsed).toBe('enhanced');
  });

  it('auto: a first basic success is not retried; no pool means direct', async () => {
    const http = fakeHttp({});
    const page = await engine(http, [], ['http://enh:1']).fetch(request());
    expect(http.calls).toHaveLength(1);
    expect(http.calls[0].proxyUrl).toBeUndefined();
    expect(page.proxyUsed).toBeUndefined();
  });

  it('auto: keeps the first answer when the enhanced retry is blocked too', async () => {
    const http = fakeHttp({ direct: 429, 'http://enh:1': 403 });
    const page = await engine(http, [], ['http://enh:1']).fetch(request());
    expect(page.status).toBe(429);
    expect(page.proxyUsed).toBeUndefined();
  });

  it('basic never retries; enhanced goes straight to the enhanced pool; pools rotate', async () => {
    const http = fakeHttp({ 'http://b:1': 403 });
    const e = engine(http, ['http://b:1', 'http://b:2'], ['http://e:1', 'http://e:2']);
    await e.fetch(request({ proxy: 'basic' }));
    await e.fetch(request({ proxy: 'basic' }));
    await e.fetch(request({ proxy: 'enhanced' }));
    await e.fetch(request({ proxy: 'enhanced' }));
    expect(http.calls.map((c) => c.proxyUrl)).toEqual([
      'http://b:1',
      'http://b:2',
      'http://e:1',
      'http://e:2',
    ]);
  });

  it('sends a mobile user agent, Accept-Language of the location and caller headers', async () => {
    const http = fakeHttp({});
    await engine(http, [], []).fetch(
      request({ mobile: true, location: { country: 'DE' }, headers: { 'X-Test': '1', Cookie: 'a=b' } }),
    );
    const sent = http.calls[0].headers ?? {};
    expect(sent['User-Agent']).toMatch(/Mobile/);
    expect(sent['Accept-Language']).toMatch(/^de-DE/);
    expect(sent['X-Test']).toBe('1');
    expect(sent.Cookie).toBe('a=b');
  });

  it('refuses to start an attempt after the deadline', async () => {
    const http = fakeHttp({});
    await expect(engine(http, [], []).fetch(request({ deadline: Date.now() - 1 }))).rejects.toMatchObject({
      code: 'SCRAPE_TIMEOUT',
    });
    expect(http.calls).toHaveLength(0);
  });
});
