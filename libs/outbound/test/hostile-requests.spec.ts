import { NetworkPolicy, OutboundHttp } from '../src';
import { serviceFailure, startServer, type TestServer } from './support';

/**
 * Requests a hostile tenant can shape: invalid headers (which used to poison undici's client for
 * the origin: later requests to it queued forever, and each attempt left a dead client behind) and
 * a request queued behind busy connections (whose deadline used to start only once dispatched).
 */
describe('OutboundHttp with hostile input', () => {
  let server: TestServer;
  let http: OutboundHttp;
  const releases: (() => void)[] = [];

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/hold') {
        releases.push(() => res.end('held'));
        return;
      }
      res.end('ok');
    });
    http = new OutboundHttp({
      policy: NetworkPolicy.fromEnvList([`127.0.0.1:${server.port}`]),
      connections: 1,
    });
  });

  afterAll(async () => {
    releases.forEach((r) => r());
    await http.close();
    await server.close();
  });

  it.each([
    [{ 'bad key': 'x' }, /invalid header name "bad key"/],
    [{ '': 'x' }, /must not be empty/],
    [{ 'x-ok': 'a\r\nInjected: 1' }, /invalid value of header x-ok/],
    [{ 'x-ok': 'nul\0' }, /invalid value of header x-ok/],
    [{ 'Transfer-Encoding': 'chunked' }, /set by the client itself/],
    [{ 'ünicode': 'x' }, /invalid header name/],
  ])('refuses %j with BAD_REQUEST and the origin keeps working', async (headers, message) => {
    for (let i = 0; i < 5; i++) {
      const err = await serviceFailure(
        http.request({ url: `${server.origin}/`, method: 'POST', body: '{}', headers, timeoutMs: 2000 }),
      );
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toMatch(message);
      expect(err.message).not.toMatch(/UND_ERR/);
    }
    const ok = await http.request({ url: `${server.origin}/`, method: 'POST', body: '{}', timeoutMs: 2000 });
    expect(ok.body.toString()).toBe('ok');
  });

  it('counts the time a request waits for a connection against its deadline', async () => {
    // The only connection is taken by a request the server holds; the next one queues behind it.
    const held = http.request({ url: `${server.origin}/hold`, timeoutMs: 30_000 });
    const started = Date.now();
    const err = await serviceFailure(http.request({ url: `${server.origin}/`, timeoutMs: 300 }));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
    // Without the queue covered it would wait for the held request (30 s); a generous bound.
    expect(Date.now() - started).toBeLessThan(10_000);
    releases.forEach((r) => r());
    expect((await held).body.toString()).toBe('held');
  });
});
