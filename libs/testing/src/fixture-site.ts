import http from 'node:http';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import {
  FIXTURE_TEXT,
  PIXEL_PNG_BASE64,
  SITE_TREE,
  articlePage,
  errorPage,
  homePage,
  largePage,
  latin1Page,
  metaPage,
  privatePage,
  robotsTxt,
  scriptRenderedPage,
  sitemap,
  sitemapIndex,
  slowPage,
  treePage,
} from './fixture-pages';
import { buildPdf } from './fixture-pdf';

export { FIXTURE_TEXT, SITE_TREE } from './fixture-pages';

export interface FixtureSite {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  readonly port: number;
  /** Requests received so far for a path name (query ignored), e.g. `hits('/docs/a')`. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Where the `/redirect-private` route points: a private address the network policy must refuse. */
export const PRIVATE_REDIRECT_TARGET = 'http://10.0.0.1/';

const MAX_SLOW_MS = 60_000;

type Reply = { status: number; type: string; body: string | Buffer; headers?: Record<string, string> };
type Route = (url: URL, base: string) => Reply | Promise<Reply>;

const html = (body: string, status = 200): Reply => ({ status, type: 'text/html; charset=utf-8', body });
const redirect = (status: number, location: string): Reply => ({
  status,
  type: 'text/html; charset=utf-8',
  body: `<!DOCTYPE html><html><body><a href="${location}">Moved</a></body></html>`,
  headers: { location },
});

/**
 * A realistic local website for scrape and crawl tests (see the README for the page list).
 * Listens on 127.0.0.1 on a free port; scrapers must allow-list it (it is loopback).
 */
export async function startFixtureSite(): Promise<FixtureSite> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const pdf = buildPdf(FIXTURE_TEXT.pdfPages, FIXTURE_TEXT.pdfTitle);
  const large = largePage();
  const siteUrls = ['/', '/article', '/meta', ...SITE_TREE];

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const routes: Record<string, Route> = {
    '/': () => html(homePage()),
    '/article': () => html(articlePage()),
    '/meta': (_url, base) => html(metaPage(base)),
    '/redirect': () => redirect(301, '/article'),
    '/redirect-chain': () => redirect(302, '/redirect-chain/1'),
    '/redirect-chain/1': () => redirect(301, '/redirect-chain/2'),
    '/redirect-chain/2': () => redirect(307, '/article'),
    '/redirect-private': () => redirect(302, PRIVATE_REDIRECT_TARGET),
    '/404': () => html(errorPage(404), 404),
    '/500': () => html(errorPage(500), 500),
    '/slow': async (url) => {
      const ms = Math.min(MAX_SLOW_MS, Math.max(0, Number(url.searchParams.get('ms') ?? 1000) || 0));
      await delay(ms);
      return html(slowPage(ms));
    },
    '/script-rendered': () => html(scriptRenderedPage()),
    '/iso-8859-1': () => ({
      status: 200,
      type: 'text/html; charset=ISO-8859-1',
      body: Buffer.from(latin1Page(), 'latin1'),
    }),
    '/sample.pdf': () => ({ status: 200, type: 'application/pdf', body: pdf }),
    '/large': () => html(large),
    '/images/pixel.png': () => ({
      status: 200,
      type: 'image/png',
      body: Buffer.from(PIXEL_PNG_BASE64, 'base64'),
    }),
    '/robots.txt': (_url, base) => ({
      status: 200,
      type: 'text/plain; charset=utf-8',
      body: robotsTxt(base),
    }),
    '/sitemap.xml': (_url, base) => xml(sitemap(base, siteUrls)),
    '/sitemap-index.xml': (_url, base) =>
      xml(sitemapIndex(base, ['/sitemap-docs.xml', '/sitemap-blog.xml.gz'])),
    '/sitemap-docs.xml': (_url, base) =>
      xml(
        sitemap(
          base,
          SITE_TREE.filter((p) => p.startsWith('/docs')),
        ),
      ),
    '/sitemap-blog.xml.gz': (_url, base) => ({
      status: 200,
      type: 'application/gzip',
      body: gzipSync(
        sitemap(
          base,
          SITE_TREE.filter((p) => p.startsWith('/blog')),
        ),
      ),
    }),
  };

  const server = http.createServer((req, res) => {
    const base = `http://${req.headers.host ?? '127.0.0.1'}`;
    const url = new URL(req.url ?? '/', base);
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const route =
      routes[url.pathname] ??
      ((u: URL) => {
        const tree = treePage(u.pathname);
        if (tree) return html(tree);
        if (u.pathname === '/private' || u.pathname.startsWith('/private/')) return html(privatePage());
        return html(errorPage(404), 404);
      });
    Promise.resolve(route(url, base)).then(
      (reply) => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': reply.type, ...reply.headers });
        res.end(req.method === 'HEAD' ? undefined : reply.body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('fixture site error');
      },
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        // Keep-alive and pending slow requests must not hold the test run open.
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function xml(body: string): Reply {
  return { status: 200, type: 'application/xml; charset=utf-8', body };
}
