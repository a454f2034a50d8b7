import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 (an ephemeral port) until `close()`, which drops open connections. */
export async function listenLocal(handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body; the text when it is not JSON; undefined when empty. */
  body: any;
  bytes: number;
}

/** One HTTP call to the stack: `route` is a path below `base` or an absolute URL. */
export async function callApi(
  base: string,
  method: string,
  route: string,
  opts: { key?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<ApiAnswer> {
  const res = await fetch(route.startsWith('http') ? route : `${base}${route}`, {
    method,
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
  });
  const text = await res.text();
  let body: unknown = text || undefined;
  try {
    if (text) body = JSON.parse(text);
  } catch {
    // Not JSON: the assertion on it will say so.
  }
  return { status: res.status, body, bytes: Buffer.byteLength(text) };
}
