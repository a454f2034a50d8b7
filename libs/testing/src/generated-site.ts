import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GeneratedSite {
  url: string;
  port: number;
  /** Requests per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A site of `pages` pages /p/0 … /p/<n-1>: page i links to its children 2i+1 and 2i+2 (a binary
 * tree, so discovery fans out) and to the home page; `delayMs` slows every answer.
 */
export async function startGeneratedSite(opts: {
  pages: number;
  delayMs?: number;
  bytes?: number;
}): Promise<GeneratedSite> {
  const hits = new Map<string, number>();
  const filler = opts.bytes
    ? `<p>${'lorem ipsum dolor sit amet '.repeat(Math.ceil(opts.bytes / 27))}</p>`
    : '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = () => {
      const m = /^\/p\/(\d+)$/.exec(path);
      const i = path === '/' ? 0 : m ? Number(m[1]) : -1;
      if (i < 0 || i >= opts.pages) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      const links = [2 * i + 1, 2 * i + 2]
        .filter((c) => c < opts.pages)
        .map((c) => `<a href="/p/${c}">page ${c}</a>`)
        .join(' ');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>` +
          `<p>Content of page ${i}.</p>${filler}<nav>${links} <a href="/">home</a></nav></main></body></html>`,
      );
    };
    if (opts.delayMs) setTimeout(answer, opts.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
