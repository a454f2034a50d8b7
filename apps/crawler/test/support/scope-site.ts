import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** A fixed answer; `body` as a function sees the site's own origin (for absolute URLs). */
export interface Route {
  status?: number;
  type?: string;
  body: string | Buffer | ((origin: string) => string | Buffer);
}

export interface SiteRequest {
  /** Path and query as requested. */
  url: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  startedAt: number;
}

export interface ScopeSite {
  url: string;
  port: number;
  /** Every request in arrival order. */
  requests: SiteRequest[];
  /** Requests per pathname. */
  hits(path: string): number;
  /** The most requests that were being answered at the same moment. */
  maxInFlight(): number;
  close(): Promise<void>;
}

/**
 * An HTML page whose `<main>` links to `links` (a function of the site's origin for absolute
 * links to the site itself); nav and footer sit outside `<main>`.
 */
export function page(title: string, links: readonly string[] | ((origin: string) => string[]) = []): Route {
  return {
    body: (origin) => {
      const anchors = (typeof links === 'function' ? links(origin) : links)
        .map((l) => `<li><a href="${l}">${l}</a></li>`)
        .join('');
      return (
        `<!doctype html><html><head><title>${title}</title></head><body>` +
        `<nav>NAV-MARK</nav><main><h1>${title}</h1><p>Body of ${title}.</p><ul>${anchors}</ul></main>` +
        `<footer>FOOTER-MARK</footer></body></html>`
      );
    },
  };
}

/** A `<urlset>` of paths (or absolute URLs) on the site. */
export function sitemap(paths: readonly string[]): Route {
  return {
    type: 'application/xml',
    body: (origin) =>
      `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      paths.map((p) => `<url><loc>${new URL(p, origin).href}</loc></url>`).join('') +
      `</urlset>`,
  };
}

/** A `<sitemapindex>` of sitemap paths on the site. */
export function sitemapIndex(paths: readonly string[]): Route {
  return {
    type: 'application/xml',
    body: (origin) =>
      `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      paths.map((p) => `<sitemap><loc>${new URL(p, origin).href}</loc></sitemap>`).join('') +
      `</sitemapindex>`,
  };
}

/** A sitemap served as a gzip file (`.xml.gz` as application/gzip, not Content-Encoding). */
export function gzipSitemap(paths: readonly string[]): Route {
  const inner = sitemap(paths).body as (origin: string) => string;
  return { type: 'application/gzip', body: (origin) => gzipSync(inner(origin)) };
}

export function text(body: string): Route {
  return { type: 'text/plain; charset=utf-8', body };
}

/**
 * A local site of fixed routes by pathname (404 otherwise) that records every request (headers,
 * start time), hits per path and the peak of requests answered at once. `delayMs` holds every
 * answer back, so concurrent fetches overlap visibly.
 */
export async function startScopeSite(
  routes: Record<string, Route>,
  opts: { delayMs?: number } = {},
): Promise<ScopeSite> {
  const requests: SiteRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  let origin = '';
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const path = new URL(url, 'http://x').pathname;
    requests.push({ url, path, headers: req.headers, startedAt: Date.now() });
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    const answer = () => {
      inFlight -= 1;
      const route = routes[path];
      if (!route) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      const body = typeof route.body === 'function' ? route.body(origin) : route.body;
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8' });
      res.end(body);
    };
    if (opts.delayMs) setTimeout(answer, opts.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    port,
    requests,
    hits: (p) => requests.filter((r) => r.path === p).length,
    maxInFlight: () => peak,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
