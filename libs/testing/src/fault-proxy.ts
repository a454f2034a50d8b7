import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of the real model server that injects faults: answer the next
 * N requests with a status instead of forwarding them, or rewrite the model's answer. It counts
 * requests and the most that were in flight at once (the concurrency cap's evidence).
 */
export interface FaultProxy {
  baseUrl: string;
  requests: number;
  maxInFlight: number;
  failNext(count: number, status: number, headers?: Record<string, string>): void;
  /** Replace the assistant content of the next `count` forwarded answers. */
  rewriteNext(count: number, content: string): void;
  resetStats(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetBaseUrl: string): Promise<FaultProxy> {
  const target = new URL(targetBaseUrl);
  let fail: { count: number; status: number; headers: Record<string, string> } = {
    count: 0,
    status: 500,
    headers: {},
  };
  let rewrite = { count: 0, content: '' };
  // Requests are counted per epoch (resetStats starts one), so a request still running from an
  // earlier test does not count as in flight for the next.
  let epoch = 0;
  const inFlight = new Map<number, number>();
  const state = { requests: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    const mine = epoch;
    state.requests++;
    inFlight.set(mine, (inFlight.get(mine) ?? 0) + 1);
    if (mine === epoch) state.maxInFlight = Math.max(state.maxInFlight, inFlight.get(mine)!);
    res.on('close', () => inFlight.set(mine, inFlight.get(mine)! - 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (fail.count > 0) {
        fail.count--;
        res.writeHead(fail.status, { 'content-type': 'application/json', ...fail.headers });
        res.end(JSON.stringify({ error: { message: `injected ${fail.status}`, type: 'injected' } }));
        return;
      }
      const path = target.pathname.replace(/\/$/, '') + (req.url ?? '').replace(/^\/v1/, '');
      const upstream = http.request(
        { host: target.hostname, port: target.port, path, method: req.method, headers: req.headers },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            let out = Buffer.concat(body);
            if (rewrite.count > 0 && up.statusCode === 200) {
              rewrite.count--;
              const json = JSON.parse(out.toString('utf8')) as {
                choices: Array<{ message: { content: string } }>;
              };
              json.choices[0].message.content = rewrite.content;
              out = Buffer.from(JSON.stringify(json));
            }
            const headers = { ...up.headers, 'content-length': String(out.length) };
            res.writeHead(up.statusCode ?? 502, headers);
            res.end(out);
          });
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    failNext(count, status, headers = {}) {
      fail = { count, status, headers };
    },
    rewriteNext(count, content) {
      rewrite = { count, content };
    },
    resetStats() {
      epoch++;
      state.requests = 0;
      state.maxInFlight = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
