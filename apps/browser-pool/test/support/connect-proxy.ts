import http from 'node:http';
import net from 'node:net';

export interface ConnectProxy {
  url: string;
  /** `host:port` of every CONNECT received, in order. */
  targets: string[];
  close(): Promise<void>;
}

/** A CONNECT-only proxy on 127.0.0.1 standing in for a WDS_PROXY_* upstream; requires the given credentials. */
export async function startConnectProxy(user = 'u', password = 'p'): Promise<ConnectProxy> {
  const sockets = new Set<net.Socket>();
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  const proxy: ConnectProxy = { url: '', targets: [], close: async () => undefined };
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (req.headers['proxy-authorization'] !== expected) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    proxy.targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://${user}:${password}@127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
