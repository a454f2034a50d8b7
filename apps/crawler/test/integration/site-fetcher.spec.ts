import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { OutboundSiteFetcher } from '../../src/crawl/site-fetcher';

/** robots.txt and sitemaps through the network policy, from a local server (allow-listed). */
describe('OutboundSiteFetcher', () => {
  // 60 MB of zeros: ~60 KB gzipped, past the 50 MB a sitemap may have once inflated.
  const bomb = gzipSync(Buffer.alloc(60 * 1024 * 1024));
  const small = gzipSync(Buffer.from('<urlset><url><loc>https://e.com/a</loc></url></urlset>'));
  let server: http.Server;
  let base: string;
  const fetcher = new OutboundSiteFetcher(['127.0.0.1']);

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(req.url === '/bomb.xml.gz' ? bomb : small);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await fetcher.close();
    await new Promise((r) => server.close(r));
  });

  it('inflates a gzip sitemap, and refuses one that inflates past 50 MB', async () => {
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect((await fetcher.getText(`${base}/sitemap.xml.gz`))?.text).toContain('https://e.com/a');
    expect(await fetcher.getText(`${base}/bomb.xml.gz`)).toBeUndefined();
  });
});
