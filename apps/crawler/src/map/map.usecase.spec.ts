import { gunzipSync } from 'node:zlib';
import { MapRequest, type MapRunReply } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { SiteFetcher, type FetchedText } from '../crawl/site-fetcher';
import { MAX_SEARCH_TERMS, MapSiteUseCase, rankBySearch } from './map.usecase';

/** A site with no robots.txt and no sitemap: only the start page's links count. */
class EmptySite extends SiteFetcher {
  async getText(url: string): Promise<FetchedText | undefined> {
    return { status: 404, url, text: 'not found' };
  }
  async close(): Promise<void> {}
}

/** The scraper's side of SCRAPE_RPC.run: records what it was asked, answers two links. */
class ScraperStandIn {
  readonly asked: string[] = [];
  async request(_def: unknown, payload: { options: { url: string } }) {
    this.asked.push(payload.options.url);
    return { document: { links: [`${new URL(payload.options.url).origin}/about`] } };
  }
}

const linksOf = (reply: MapRunReply) =>
  (JSON.parse(gunzipSync(Buffer.from(reply.linksGz, 'base64')).toString()) as { url: string }[]).map(
    (l) => l.url,
  );

describe('MapSiteUseCase', () => {
  it('maps a URL at the length limit whose serialised form is longer (it was a 500)', async () => {
    // 8192 characters as sent; `new URL(...).href` adds the path's `/`, 8193 > the URL limit.
    const prefix = 'http://127.0.0.1:9?';
    const url = prefix + 'q'.repeat(8192 - prefix.length);
    const request = MapRequest.parse({ url, sitemap: 'skip' });
    const scraper = new ScraperStandIn();
    const uc = new MapSiteUseCase(scraper as unknown as Messaging, new EmptySite());
    const reply = await uc.execute({ teamId: 'team-a', request });
    expect(scraper.asked).toEqual([url]);
    // The query is dropped (ignoreQueryParameters defaults to true).
    expect(linksOf(reply)).toEqual(['http://127.0.0.1:9/', 'http://127.0.0.1:9/about']);
  });

  it('scrapes the start page as written when percent-encoding makes its serialised form too long', async () => {
    const url = `http://127.0.0.1:9/${'é'.repeat(4000)}`;
    expect(new URL(url).href.length).toBeGreaterThan(8192);
    const request = MapRequest.parse({ url, sitemap: 'include' });
    const scraper = new ScraperStandIn();
    const reply = await new MapSiteUseCase(scraper as unknown as Messaging, new EmptySite()).execute({
      teamId: 'team-a',
      request,
    });
    expect(scraper.asked).toEqual([url]);
    expect(linksOf(reply)).toEqual([new URL(url).href, 'http://127.0.0.1:9/about']);
  });
});

describe('rankBySearch', () => {
  it('ranks by the distinct search terms a link mentions, the first MAX_SEARCH_TERMS of them', () => {
    const links = [
      'https://e.com/a',
      'https://e.com/pricing',
      'https://e.com/pricing/docs',
      'https://e.com/zz',
    ].map((url) => ({ url }));
    expect(rankBySearch(links, 'docs pricing pricing').map((l) => l.url)).toEqual([
      'https://e.com/pricing/docs',
      'https://e.com/pricing',
      'https://e.com/a',
      'https://e.com/zz',
    ]);
    // Terms past the first MAX_SEARCH_TERMS distinct ones do not count.
    const filler = Array.from({ length: MAX_SEARCH_TERMS }, (_, i) => `w${i}`).join(' ');
    expect(rankBySearch(links, `${filler} zz`).map((l) => l.url)).toEqual(links.map((l) => l.url));
  });
});
