import zlib from 'node:zlib';
import { NetworkPolicy, OutboundHttp } from '../src';
import { closedPort, serviceFailure, startServer, type TestServer } from './support';

const SJIS_PAGE = Buffer.concat([
  Buffer.from('<html><head><meta charset="Shift_JIS"></head><body>'),
  Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]),
  Buffer.from('</body></html>'),
]);

/** Integration: redirects, deadlines, size caps, decoding and error classification against local servers. */
describe('OutboundHttp', () => {
  let server: TestServer;
  let peer: TestServer;
  let http: OutboundHttp;

  beforeAll(async () => {
    server = await startServer((req, res, hit) => {
      const u = new URL(req.url ?? '/', 'http://x');
      switch (u.pathname) {
        case '/r1':
          return res.writeHead(301, { location: 'r2?x=1' }).end();
        case '/r2':
          return res.writeHead(302, { location: `${server.origin}/final` }).end();
        case '/final':
          return res.writeHead(200, { 'content-type': 'text/plain' }).end(`final ${req.method} ${u.search}`);
        case '/loop':
          return res.writeHead(302, { location: '/loop' }).end();
        case '/see-other':
          return res.writeHead(303, { location: '/echo' }).end();
        case '/temp':
          return res.writeHead(307, { location: '/echo' }).end();
        case '/echo':
          return res
            .writeHead(200)
            .end(
              JSON.stringify({ method: hit.method, body: hit.body, auth: hit.headers.authorization ?? null }),
            );
        case '/cross':
          return res.writeHead(302, { location: `http://localhost:${peer.port}/` }).end();
        case '/redirect-with-body':
          return res
            .writeHead(302, { location: '/final', 'content-type': 'text/html' })
            .end('<a href="/final">moved</a>');
        case '/redirect-with-huge-body': {
          // A body far beyond what is worth reading (and beyond maxBytes): dropped, the redirect still followed.
          res.writeHead(301, { location: '/final' });
          for (let i = 0; i < 48; i++) res.write(Buffer.alloc(64 * 1024, 99));
          return res.end();
        }
        case '/redirect-declared-huge':
          return res
            .writeHead(301, { location: '/final', 'content-length': String(3 * 1024 * 1024) })
            .end(Buffer.alloc(3 * 1024 * 1024, 100));
        case '/ftp':
          return res.writeHead(302, { location: 'ftp://example.com/' }).end();
        case '/hang':
          return; // never answers
        case '/stall':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('partial');
          return; // body never completes
        case '/big':
          return res
            .writeHead(200, { 'content-length': String(2 * 1024 * 1024) })
            .end(Buffer.alloc(2 * 1024 * 1024, 97));
        case '/big-chunked': {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          for (let i = 0; i < 40; i++) res.write(Buffer.alloc(64 * 1024, 98));
          return res.end();
        }
        case '/gzip':
          return res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' })
            .end(zlib.gzipSync(Buffer.from('<p>compressed ✓</p>')));
        case '/br-bomb':
          return res
            .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'br' })
            .end(zlib.brotliCompressSync(Buffer.alloc(5 * 1024 * 1024, 0)));
        case '/sjis':
          return res.writeHead(200, { 'content-type': 'text/html' }).end(SJIS_PAGE);
        case '/png':
          return res
            .writeHead(200, { 'content-type': 'image/png' })
            .end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        case '/reset':
          res.writeHead(200, { 'content-length': '1000' });
          res.write('only part');
          setTimeout(() => req.socket.destroy(), 20);
          return;
        case '/headers':
          return res.writeHead(200, { 'set-cookie': ['a=1', 'b=2'] }).end(JSON.stringify(hit.headers));
        default:
          return res.writeHead(404).end('nope');
      }
    });
    peer = await startServer((_req, res, hit) =>
      res.end(JSON.stringify({ auth: hit.headers.authorization ?? null })),
    );
    http = new OutboundHttp({
      policy: NetworkPolicy.fromEnvList([`127.0.0.1:${server.port}`, `localhost:${peer.port}`]),
      userAgent: 'wds-test/1',
    });
  });

  afterAll(async () => {
    await http.close();
    await Promise.all([server.close(), peer.close()]);
  });

  it('follows absolute and relative redirects and reports the chain', async () => {
    const res = await http.request({ url: `${server.origin}/r1`, timeoutMs: 5000 });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${server.origin}/final`);
    expect(res.redirects).toEqual([`${server.origin}/r2?x=1`, `${server.origin}/final`]);
    expect(res.body.toString()).toBe('final GET ');
    expect(res.timings.totalMs).toBeGreaterThanOrEqual(0);
  });

  it('stops after maxRedirects with a clear error', async () => {
    const err = await serviceFailure(
      http.request({ url: `${server.origin}/loop`, timeoutMs: 5000, maxRedirects: 3 }),
    );
    expect(err.code).toBe('UPSTREAM_FAILED');
    expect(err.details).toMatchObject({ reason: 'too_many_redirects' });
    expect(err.message).toMatch(/too many redirects \(more than 3\)/);
  });

  it('turns POST into GET on 303 and keeps it on 307', async () => {
    const post = {
      method: 'POST' as const,
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
      timeoutMs: 5000,
    };
    const seeOther = await http.request({ ...post, url: `${server.origin}/see-other` });
    expect(JSON.parse(seeOther.body.toString())).toMatchObject({ method: 'GET', body: '' });
    const temp = await http.request({ ...post, url: `${server.origin}/temp` });
    expect(JSON.parse(temp.body.toString())).toMatchObject({ method: 'POST', body: 'payload' });
  });

  it('drops Authorization on a cross-origin redirect only', async () => {
    const headers = { authorization: 'Bearer secret' };
    const same = await http.request({ url: `${server.origin}/temp`, headers, timeoutMs: 5000 });
    expect(JSON.parse(same.body.toString()).auth).toBe('Bearer secret');
    const cross = await http.request({ url: `${server.origin}/cross`, headers, timeoutMs: 5000 });
    expect(cross.url).toBe(`http://localhost:${peer.port}/`);
    expect(JSON.parse(cross.body.toString()).auth).toBeNull();
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const err = await serviceFailure(http.request({ url: `${server.origin}/ftp`, timeoutMs: 5000 }));
    expect(err.details).toMatchObject({ reason: 'bad_redirect' });
  });

  it('times out a server that never answers in about timeoutMs', async () => {
    const started = Date.now();
    const err = await serviceFailure(http.request({ url: `${server.origin}/hang`, timeoutMs: 400 }));
    const elapsed = Date.now() - started;
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(err.message).toContain('400 ms');
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1500);
  });

  it('times out a body that stalls after the headers', async () => {
    const started = Date.now();
    const err = await serviceFailure(http.request({ url: `${server.origin}/stall`, timeoutMs: 400 }));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('passes a caller abort through', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(
      http.request({ url: `${server.origin}/hang`, timeoutMs: 5000, signal: controller.signal }),
    ).rejects.toThrow('caller gave up');
  });

  it.each([['/redirect-with-body'], ['/redirect-with-huge-body'], ['/redirect-declared-huge']])(
    'follows a redirect whatever its own body (%s)',
    async (path) => {
      const res = await http.request({
        url: `${server.origin}${path}`,
        timeoutMs: 5000,
        maxBytes: 1024 * 1024,
      });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('final GET ');
      expect(res.redirects).toEqual([`${server.origin}/final`]);
    },
  );

  it.each([['/big'], ['/big-chunked']])('caps the body size (%s)', async (path) => {
    const err = await serviceFailure(
      http.request({ url: `${server.origin}${path}`, timeoutMs: 5000, maxBytes: 1024 * 1024 }),
    );
    expect(err.code).toBe('UPSTREAM_FAILED');
    expect(err.details).toMatchObject({ reason: 'too_large', maxBytes: 1024 * 1024 });
  });

  it('decompresses gzip and caps decompressed size', async () => {
    const res = await http.request({ url: `${server.origin}/gzip`, timeoutMs: 5000 });
    expect(res.body.toString()).toBe('<p>compressed ✓</p>');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.charset).toBe('utf-8');
    const err = await serviceFailure(
      http.request({ url: `${server.origin}/br-bomb`, timeoutMs: 5000, maxBytes: 1024 * 1024 }),
    );
    expect(err.details).toMatchObject({ reason: 'too_large' });
  });

  it('reports content type and sniffed charset', async () => {
    const res = await http.request({ url: `${server.origin}/sjis`, timeoutMs: 5000 });
    expect(res.contentType).toBe('text/html');
    expect(res.charset).toBe('shift_jis');
    const png = await http.request({ url: `${server.origin}/png`, timeoutMs: 5000 });
    expect(png.charset).toBeUndefined();
    expect(png.body).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });

  it('sends the default user agent and joins repeated response headers', async () => {
    const res = await http.request({ url: `${server.origin}/headers`, timeoutMs: 5000 });
    const sent = JSON.parse(res.body.toString()) as Record<string, string>;
    expect(sent['user-agent']).toBe('wds-test/1');
    expect(sent['accept-encoding']).toBe('gzip, deflate, br');
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
    const custom = await http.request({
      url: `${server.origin}/headers`,
      headers: { 'User-Agent': 'Mine' },
      timeoutMs: 5000,
    });
    expect(JSON.parse(custom.body.toString())['user-agent']).toBe('Mine');
  });

  it('returns non-2xx answers as responses', async () => {
    const res = await http.request({ url: `${server.origin}/missing`, timeoutMs: 5000 });
    expect(res.status).toBe(404);
    expect(res.body.toString()).toBe('nope');
  });

  it('classifies a reset connection', async () => {
    const err = await serviceFailure(http.request({ url: `${server.origin}/reset`, timeoutMs: 5000 }));
    expect(err.code).toBe('UPSTREAM_FAILED');
    expect(err.details).toMatchObject({ reason: 'reset' });
  });

  it('classifies a refused connection', async () => {
    const port = await closedPort();
    const client = new OutboundHttp({ policy: NetworkPolicy.fromEnvList([`127.0.0.1:${port}`]) });
    try {
      const err = await serviceFailure(client.request({ url: `http://127.0.0.1:${port}/`, timeoutMs: 5000 }));
      expect(err.details).toMatchObject({ reason: 'refused' });
      expect(err.message).toBe('connection to 127.0.0.1 was refused');
    } finally {
      await client.close();
    }
  });

  it('classifies a DNS failure', async () => {
    const err = await serviceFailure(
      http.request({ url: 'http://does-not-exist.invalid/', timeoutMs: 10000 }),
    );
    expect(err.code).toBe('UPSTREAM_FAILED');
    expect(err.details).toMatchObject({ reason: 'dns' });
    expect(err.message).toBe('could not resolve host does-not-exist.invalid');
  });

  it('rejects unsupported schemes as BAD_REQUEST', async () => {
    expect((await serviceFailure(http.request({ url: 'file:///etc/passwd', timeoutMs: 5000 }))).code).toBe(
      'BAD_REQUEST',
    );
  });
});
