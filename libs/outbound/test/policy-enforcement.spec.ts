import { NetworkPolicy, OutboundHttp, type Resolver } from '../src';
import { serviceFailure, startServer, type TestServer } from './support';

/** Integration: the policy is enforced before each hop and again when the socket connects. */
describe('OutboundHttp network policy', () => {
  let target: TestServer;
  let other: TestServer;
  const clients: OutboundHttp[] = [];
  const client = (policy: NetworkPolicy) => {
    const c = new OutboundHttp({ policy });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    target = await startServer((req, res) => {
      if (req.url === '/to-other') res.writeHead(302, { location: `${other.origin}/` }).end();
      else if (req.url === '/to-private') res.writeHead(301, { location: 'http://10.0.0.1/' }).end();
      else if (req.url === '/to-metadata')
        res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from target');
    });
    other = await startServer((_req, res) => res.end('other'));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([target.close(), other.close()]);
  });

  const reset = () => {
    target.hits.length = 0;
    other.hits.length = 0;
  };

  it('refuses a loopback IP URL without connecting', async () => {
    reset();
    const before = target.connections;
    const err = await serviceFailure(
      client(new NetworkPolicy()).request({ url: `${target.origin}/`, timeoutMs: 5000 }),
    );
    expect(err.code).toBe('DESTINATION_BLOCKED');
    expect(err.message).toContain('127.0.0.1');
    expect(target.connections).toBe(before);
  });

  it('refuses localhost (a name resolving to loopback)', async () => {
    const before = target.connections;
    const err = await serviceFailure(
      client(new NetworkPolicy()).request({ url: `http://localhost:${target.port}/`, timeoutMs: 5000 }),
    );
    expect(err.code).toBe('DESTINATION_BLOCKED');
    expect(err.message).toContain('localhost');
    expect(target.connections).toBe(before);
  });

  it('refuses a public-looking name that resolves to loopback', async () => {
    const resolve: Resolver = async (host) => {
      if (host === 'evil.example') return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    const before = target.connections;
    const err = await serviceFailure(
      client(new NetworkPolicy({ resolve })).request({
        url: `http://evil.example:${target.port}/`,
        timeoutMs: 5000,
      }),
    );
    expect(err.code).toBe('DESTINATION_BLOCKED');
    expect(err.message).toContain('evil.example');
    expect(err.message).not.toContain('127.0.0.1');
    expect(target.connections).toBe(before);
  });

  it('refuses the cloud metadata address', async () => {
    const err = await serviceFailure(
      client(new NetworkPolicy()).request({
        url: 'http://169.254.169.254/latest/meta-data/',
        timeoutMs: 5000,
      }),
    );
    expect(err.code).toBe('DESTINATION_BLOCKED');
  });

  it('connects with the injected resolver (an allow-listed name only it knows)', async () => {
    reset();
    const calls: string[] = [];
    const resolve: Resolver = async (host) => {
      calls.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const http = client(new NetworkPolicy({ resolve, allowlist: ['svc.internal.test'] }));
    const res = await http.request({ url: `http://svc.internal.test:${target.port}/ok`, timeoutMs: 5000 });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello from target');
    expect(target.hits.map((h) => h.headers.host)).toEqual([`svc.internal.test:${target.port}`]);
    // Once for the pre-flight check, once from the socket's lookup.
    expect(calls).toEqual(['svc.internal.test', 'svc.internal.test']);
  });

  it('blocks at connect time when the name re-resolves to a blocked address (DNS rebinding)', async () => {
    let n = 0;
    const resolve: Resolver = async () =>
      n++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const before = target.connections;
    const err = await serviceFailure(
      client(new NetworkPolicy({ resolve })).request({
        url: `http://rebind.example:${target.port}/`,
        timeoutMs: 5000,
      }),
    );
    expect(err.code).toBe('DESTINATION_BLOCKED');
    expect(err.message).toContain('rebind.example');
    expect(n).toBe(2);
    expect(target.connections).toBe(before);
  });

  describe('with 127.0.0.1:<target port> allow-listed', () => {
    let http: OutboundHttp;
    beforeAll(() => {
      http = client(NetworkPolicy.fromEnvList([`127.0.0.1:${target.port}`]));
    });

    it('reaches the allowed port', async () => {
      const res = await http.request({ url: `${target.origin}/`, timeoutMs: 5000 });
      expect(res.status).toBe(200);
      expect(res.url).toBe(`${target.origin}/`);
    });

    it('refuses a redirect to another loopback port on the hop', async () => {
      reset();
      const before = other.connections;
      const err = await serviceFailure(http.request({ url: `${target.origin}/to-other`, timeoutMs: 5000 }));
      expect(err.code).toBe('DESTINATION_BLOCKED');
      expect(target.hits).toHaveLength(1);
      expect(other.hits).toHaveLength(0);
      expect(other.connections).toBe(before);
    });

    it('refuses redirects into private space and to the metadata address', async () => {
      expect(
        (await serviceFailure(http.request({ url: `${target.origin}/to-private`, timeoutMs: 5000 }))).code,
      ).toBe('DESTINATION_BLOCKED');
      const err = await serviceFailure(
        http.request({ url: `${target.origin}/to-metadata`, timeoutMs: 5000 }),
      );
      expect(err.code).toBe('DESTINATION_BLOCKED');
      expect(err.message).toContain('169.254.169.254');
    });

    it('refuses the same address on a port the entry does not name', async () => {
      const err = await serviceFailure(http.request({ url: `${other.origin}/`, timeoutMs: 5000 }));
      expect(err.code).toBe('DESTINATION_BLOCKED');
    });
  });
});
