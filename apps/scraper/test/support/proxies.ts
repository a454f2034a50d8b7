import http from 'node:http';
import net from 'node:net';

export interface TestProxy {
  url: string;
  /** CONNECT requests received. */
  connects: number;
  close(): Promise<void>;
}

/**
 * A CONNECT proxy on 127.0.0.1. With `divertTo`, every tunnel goes to that port instead of the
 * requested target: a stand-in for an exit IP the target site blocks.
 */
export async function startConnectProxy(divertTo?: number): Promise<TestProxy> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  const proxy: TestProxy = { url: '', connects: 0, close: async () => undefined };
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    proxy.connects++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(divertTo ?? Number(port), divertTo ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

/** A site that answers every request 403, like a bot wall. */
export async function startBlockingSite(): Promise<{ port: number; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res
      .writeHead(403, { 'content-type': 'text/html' })
      .end('<html><body><h1>Access denied</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
