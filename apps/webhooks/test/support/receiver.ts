import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes that arrived. */
  raw: Buffer;
  body: any;
  at: number;
}

/** How the receiver answers the n-th request (0-based) to a path: a status, or hang (never answer). */
export type Behaviour = (n: number, req: Received) => number | 'hang';

/** A webhook receiver the tests run: records every request and answers as told per path. */
export class Receiver {
  readonly requests: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly counts = new Map<string, number>();
  /** Requests left unanswered, with their path. */
  private readonly hanging = new Map<http.ServerResponse, string>();
  private readonly waiters: (() => void)[] = [];
  private server!: http.Server;
  private active = new Map<string, number>();
  /** Highest number of requests to one path being answered at the same time. */
  readonly maxConcurrent = new Map<string, number>();
  url = '';
  port = 0;

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server = http.createServer((req, res) => r.handle(req, res));
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.port = (r.server.address() as AddressInfo).port;
    r.url = `http://127.0.0.1:${r.port}`;
    return r;
  }

  on(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves once `count` requests reached `path` (rejects after `timeoutMs`). */
  async waitFor(path: string, count: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) {
        throw new Error(`expected ${count} requests to ${path}, got ${this.at(path).length}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.at(path);
  }

  /** Requests to `path` being answered now (connections still open). */
  openAt(path: string): number {
    return this.active.get(path) ?? 0;
  }

  /** Answers every request to `path` left hanging so far with `status`; returns how many. */
  release(path: string, status = 200): number {
    let n = 0;
    for (const [res, p] of this.hanging) {
      if (p !== path) continue;
      this.hanging.delete(res);
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      n++;
    }
    return n;
  }

  async close(): Promise<void> {
    for (const res of this.hanging.keys()) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const received: Received = { path, headers: req.headers, raw, body, at: Date.now() };
      this.requests.push(received);
      const n = this.counts.get(path) ?? 0;
      this.counts.set(path, n + 1);
      const active = (this.active.get(path) ?? 0) + 1;
      this.active.set(path, active);
      this.maxConcurrent.set(path, Math.max(active, this.maxConcurrent.get(path) ?? 0));
      res.once('close', () => this.active.set(path, (this.active.get(path) ?? 1) - 1));
      for (const wake of this.waiters.splice(0)) wake();
      const answer = (this.behaviours.get(path) ?? (() => 200))(n, received);
      if (answer === 'hang') {
        this.hanging.set(res, path);
        res.once('close', () => this.hanging.delete(res));
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  }
}
