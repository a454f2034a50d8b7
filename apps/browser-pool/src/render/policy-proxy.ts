import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '@wds/observability';
import type { NetworkPolicy } from '@wds/outbound';
import { openTunnel } from './upstream-tunnel';

/** Response header marking an answer of the proxy itself: the destination was refused by the policy. */
export const BLOCKED_HEADER = 'x-wds-blocked';
/** Response header of the proxy's own 502: why the page's server could not be reached. */
export const PROXY_ERROR_HEADER = 'x-wds-proxy-error';

/** Upstream proxies (one loopback listener each) a replica keeps at most: the configured pools are small. */
const MAX_UPSTREAMS = 64;

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

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A forward proxy on loopback that every Chromium connection goes through (HTTP requests, CONNECT
 * tunnels for HTTPS and websockets, every redirect hop, prefetches). It resolves the destination
 * itself, refuses it when the network policy does, and connects to the vetted address, so a DNS
 * answer changing between check and connect (rebinding) cannot reach a private address either.
 *
 * Contexts whose connections must leave through an upstream proxy (the scraper's WDS_PROXY_* pools)
 * use a listener of their own (`urlFor(upstream)`): the policy is checked the same way, then the
 * connection is tunnelled through that proxy (CONNECT, as the fetch engine's proxy agent does).
 */
export class PolicyProxy {
  private readonly servers: http.Server[] = [];
  private readonly upstreams = new Map<string, Promise<string>>();
  private readonly sockets = new Set<Duplex>();
  // Idle sockets are dropped before common server keep-alive timeouts (5 s) to make reuse races rare.
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  blocked = 0;
  private address?: string;

  /** The proxy URL (direct connections) once started. */
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
    this.address = await this.listen(undefined);
    return this.address;
  }

  /** The loopback proxy URL whose connections leave through `upstream` (created on first use). */
  urlFor(upstream: string | undefined): Promise<string> {
    if (upstream === undefined) return Promise.resolve(this.url);
    let listening = this.upstreams.get(upstream);
    if (!listening) {
      if (this.upstreams.size >= MAX_UPSTREAMS) {
        return Promise.reject(new Error(`more than ${MAX_UPSTREAMS} distinct upstream proxies`));
      }
      listening = this.listen(upstream);
      listening.catch(() => this.upstreams.delete(upstream));
      this.upstreams.set(upstream, listening);
    }
    return listening;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    await Promise.all(this.servers.map((server) => new Promise<void>((r) => server.close(() => r()))));
  }

  private async listen(upstream: string | undefined): Promise<string> {
    const server = http.createServer((req, res) => void this.forward(req, res, upstream));
    server.on(
      'connect',
      (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
        void this.tunnel(req, socket, head, upstream),
    );
    server.on('connection', (s: net.Socket) => this.track(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

  private async forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    upstream: string | undefined,
  ): Promise<void> {
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
    const base: http.RequestOptions = { method: req.method, path: target.pathname + target.search, headers };
    let options: http.RequestOptions;
    if (upstream) {
      const host = target.hostname.replace(/^\[|\]$/g, '');
      try {
        const socket = await openTunnel(upstream, host, port);
        this.track(socket);
        options = { ...base, host, port, agent: false, createConnection: () => socket };
      } catch (err) {
        this.badGateway(res, (err as Error).message);
        return;
      }
    } else {
      options = { ...base, host: address, port, agent: this.agent };
    }
    const send = (retry: boolean) => {
      const out = http.request(options, (up) => {
        const reply: http.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k)) reply[k] = v;
        res.writeHead(up.statusCode ?? 502, up.statusMessage, reply);
        up.pipe(res);
      });
      out.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed just as it was reused: send the request once more.
        if (retry && out.reusedSocket && IDEMPOTENT.has(req.method ?? '') && !res.headersSent) {
          send(false);
          return;
        }
        this.logger.debug({ host: target.host, err: err.message }, 'browser request failed upstream');
        this.badGateway(res, err.code ?? err.message);
      });
      if (IDEMPOTENT.has(req.method ?? '')) out.end();
      else req.pipe(out);
    };
    send(!upstream);
  }

  private badGateway(res: http.ServerResponse, why: string): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res
      .writeHead(502, { [PROXY_ERROR_HEADER]: why.replace(/[^\x20-\x7e]/g, ' ').slice(0, 200) })
      .end(`Bad gateway: ${why}`);
  }

  private async tunnel(
    req: http.IncomingMessage,
    socket: Duplex,
    head: Buffer,
    upstream: string | undefined,
  ): Promise<void> {
    this.track(socket);
    socket.on('error', () => socket.destroy());
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const address = m ? await this.vet(m[1], Number(m[2])) : undefined;
    if (!m || !address) {
      socket.end(`HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: policy\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const port = Number(m[2]);
    const connected = (remote: net.Socket) => {
      this.track(remote);
      remote.on('error', () => socket.destroy());
      socket.on('close', () => remote.destroy());
      remote.on('close', () => socket.destroy());
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) remote.write(head);
      remote.pipe(socket);
      socket.pipe(remote);
    };
    if (upstream) {
      openTunnel(upstream, m[1].replace(/^\[|\]$/g, ''), port).then(connected, (err: Error) => {
        this.logger.debug({ target: req.url, err: err.message }, 'upstream proxy tunnel failed');
        socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
      });
      return;
    }
    const remote = net.connect(port, address);
    remote.once('connect', () => connected(remote));
    remote.once('error', () => {
      if (remote.connecting) socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
      socket.destroy();
    });
  }

  private track(s: Duplex): void {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
  }
}
