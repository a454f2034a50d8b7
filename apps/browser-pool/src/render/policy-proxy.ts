import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '@wds/observability';
import type { NetworkPolicy } from '@wds/outbound';

/** Response header marking an answer of the proxy itself: the destination was refused by the policy. */
export const BLOCKED_HEADER = 'x-wds-blocked';

const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'proxy-authorization',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * A forward proxy on loopback that every Chromium connection goes through (HTTP requests, CONNECT
 * tunnels for HTTPS and websockets, every redirect hop, prefetches). It resolves the destination
 * itself, refuses it when the network policy does, and connects to the vetted address, so a DNS
 * answer changing between check and connect (rebinding) cannot reach a private address either.
 */
export class PolicyProxy {
  private server?: http.Server;
  private readonly sockets = new Set<Duplex>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  blocked = 0;
  private address?: string;

  /** The proxy URL once started. */
  get url(): string {
    if (!this.address) throw new Error('policy proxy not started');
    return this.address;
  }

  constructor(
    private readonly policy: NetworkPolicy,
    private readonly logger: Logger,
  ) {}

  /** Listens on 127.0.0.1 and returns the proxy URL for Chromium. */
  async start(): Promise<string> {
    const server = http.createServer((req, res) => void this.forward(req, res));
    server.on(
      'connect',
      (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head),
    );
    server.on('connection', (s: net.Socket) => this.track(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.address;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    const server = this.server;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  private async vet(host: string, port: number): Promise<string | undefined> {
    try {
      const [first] = await this.policy.vet(host.replace(/^\[|\]$/g, ''), port);
      return first?.address;
    } catch (err) {
      this.blocked++;
      this.logger.debug({ host, port, err: (err as Error).message }, 'browser request refused by the policy');
      return undefined;
    }
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400, { [BLOCKED_HEADER]: 'bad-request' }).end();
      return;
    }
    const port = Number(target.port || 80);
    const address = await this.vet(target.hostname, port);
    if (!address) {
      res
        .writeHead(403, { [BLOCKED_HEADER]: 'policy', 'content-type': 'text/plain' })
        .end('Destination refused by the network policy');
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
    const upstream = http.request(
      {
        host: address,
        port,
        method: req.method,
        path: target.pathname + target.search,
        headers,
        agent: this.agent,
      },
      (up) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k)) out[k] = v;
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }

  private async tunnel(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.track(socket);
    socket.on('error', () => socket.destroy());
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const address = m ? await this.vet(m[1], Number(m[2])) : undefined;
    if (!m || !address) {
      socket.end(`HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: policy\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect(Number(m[2]), address);
    this.track(upstream);
    upstream.once('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => {
      if (socket.writable && !upstream.readyState.startsWith('open'))
        socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      socket.destroy();
    });
    socket.on('close', () => upstream.destroy());
  }

  private track(s: Duplex): void {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
  }
}
