import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountedFetch {
  path: string;
  start: number;
  end?: number;
}

export interface CountingSite {
  url: string;
  port: number;
  /** Every page request (robots.txt aside), in arrival order. */
  fetches: CountedFetch[];
  inflight(): number;
  /** The most page requests that were open at once. */
  maxInflight(): number;
  close(): Promise<void>;
}

/**
 * A site whose every page answers after `pageMs` and which counts the page requests open at once:
 * `/c/` links to `/c/p0`..`/c/p<links-1>` (a crawl), any other path is a plain page (a batch).
 */
export async function startCountingSite(pageMs: number, links: number): Promise<CountingSite> {
  const fetches: CountedFetch[] = [];
  let inflight = 0;
  let max = 0;
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (p === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    const f: CountedFetch = { path: p, start: Date.now() };
    fetches.push(f);
    max = Math.max(max, ++inflight);
    const body =
      p === '/c/'
        ? Array.from({ length: links }, (_, i) => `<a href="/c/p${i}">page ${i}</a>`).join(' ')
        : `<p>Page ${p}</p>`;
    setTimeout(() => {
      inflight--;
      f.end = Date.now();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><title>${p}</title></head><body><main><h1>${p}</h1>${body}</main></body></html>`);
    }, pageMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    fetches,
    inflight: () => inflight,
    maxInflight: () => max,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
