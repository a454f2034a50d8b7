import { NetworkPolicy, OutboundHttp } from '../src';
import {
  selfSignedCert,
  serviceFailure,
  startProxy,
  startServer,
  startTlsServer,
  type TestProxy,
  type TestServer,
} from './support';

/** Integration: TLS verification modes and forwarding through an HTTP proxy. */
describe('OutboundHttp TLS and proxies', () => {
  let tlsServer: TestServer;
  let plain: TestServer;
  let proxy: TestProxy;
  let http: OutboundHttp;

  beforeAll(async () => {
    tlsServer = await startTlsServer(selfSignedCert(), (_req, res) => res.end('secure hello'));
    plain = await startServer((req, res) => res.end(`plain hello ${req.url}`));
    proxy = await startProxy();
    http = new OutboundHttp({
      policy: NetworkPolicy.fromEnvList([`127.0.0.1:${tlsServer.port}`, `127.0.0.1:${plain.port}`]),
    });
  });

  afterAll(async () => {
    await http.close();
    await Promise.all([tlsServer.close(), plain.close(), proxy.close()]);
  });

  it('accepts a self-signed certificate when skipTlsVerification is true', async () => {
    const res = await http.request({
      url: `${tlsServer.origin}/`,
      timeoutMs: 5000,
      skipTlsVerification: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('secure hello');
  });

  it('refuses it with reason tls when verification is on (the default)', async () => {
    const err = await serviceFailure(http.request({ url: `${tlsServer.origin}/`, timeoutMs: 5000 }));
    expect(err.code).toBe('UPSTREAM_FAILED');
    expect(err.details).toMatchObject({ reason: 'tls', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(err.message).toContain('TLS handshake with 127.0.0.1 failed');
  });

  it('sends plain HTTP requests through the proxy with basic auth', async () => {
    const before = proxy.connects.length;
    const proxyUrl = `http://user:p%40ss@127.0.0.1:${proxy.port}`;
    const res = await http.request({ url: `${plain.origin}/via-proxy`, timeoutMs: 5000, proxyUrl });
    expect(res.body.toString()).toBe('plain hello /via-proxy');
    expect(proxy.connects.slice(before)).toEqual([`127.0.0.1:${plain.port}`]);
    expect(proxy.auth.at(-1)).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  });

  it('tunnels HTTPS through the proxy', async () => {
    const proxyUrl = `http://127.0.0.1:${proxy.port}`;
    const res = await http.request({
      url: `${tlsServer.origin}/`,
      timeoutMs: 5000,
      proxyUrl,
      skipTlsVerification: true,
    });
    expect(res.body.toString()).toBe('secure hello');
    expect(proxy.connects).toContain(`127.0.0.1:${tlsServer.port}`);
  });

  it('still applies the policy to the target before using the proxy', async () => {
    const strict = new OutboundHttp({ policy: new NetworkPolicy() });
    try {
      const before = proxy.connections;
      const err = await serviceFailure(
        strict.request({
          url: `${plain.origin}/`,
          timeoutMs: 5000,
          proxyUrl: `http://127.0.0.1:${proxy.port}`,
        }),
      );
      expect(err.code).toBe('DESTINATION_BLOCKED');
      expect(proxy.connections).toBe(before);
    } finally {
      await strict.close();
    }
  });

  it('refuses new requests after close', async () => {
    const c = new OutboundHttp({ policy: new NetworkPolicy() });
    await c.close();
    expect((await serviceFailure(c.request({ url: 'http://example.com/', timeoutMs: 1000 }))).code).toBe(
      'SERVICE_UNAVAILABLE',
    );
  });
});
