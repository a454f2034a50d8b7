import { randomUUID } from 'node:crypto';
import { startFixtureSite, type FixtureSite } from '@wds/testing';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

describe('scraper service: network policy without an allow-list', () => {
  let site: FixtureSite;
  let scraper: ScraperHarness;
  const team = () => `team-${randomUUID()}`;

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = await startScraper();
  });
  afterAll(async () => {
    await scraper?.stop();
    await site?.close();
  });

  it.each([
    ['loopback', () => `${site.url}/article`],
    ['a DNS name resolving to loopback', () => `http://localhost:${site.port}/article`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', () => 'http://10.0.0.1/'],
  ])('refuses %s with DESTINATION_BLOCKED and never connects', async (_name, url) => {
    const hits = site.hits('/article');
    await expect(scraper.scrape(team(), { url: url(), timeout: 5000 })).rejects.toMatchObject({
      code: 'DESTINATION_BLOCKED',
    });
    expect(site.hits('/article')).toBe(hits);
  });

  it('reports an unresolvable host clearly', async () => {
    await expect(scraper.scrape(team(), { url: 'http://no-such-host.invalid/' })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: expect.stringContaining('no-such-host.invalid'),
    });
  });
});
