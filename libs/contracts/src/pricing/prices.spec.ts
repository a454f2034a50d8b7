import { ScrapeRequest } from '../api/scrape/scrape-request';
import { browserSessionCredits, contentCost, CREDIT_PRICES, freshScrapeCost, scrapeEstimate } from './prices';

describe('scrape credits', () => {
  it('bills a page 1, a parsed PDF per page and a base64 PDF flat', () => {
    expect(contentCost({ kind: 'page' })).toBe(1);
    expect(contentCost({ kind: 'pdf', pages: 7 })).toBe(7);
    expect(contentCost({ kind: 'pdf', pages: 0 })).toBe(1);
    expect(contentCost({ kind: 'pdf-base64' })).toBe(1);
  });

  it('bills 5 for a page served through an enhanced proxy, the regular cost otherwise', () => {
    expect(freshScrapeCost({ kind: 'page' }, 'enhanced')).toBe(5);
    expect(freshScrapeCost({ kind: 'page' }, 'basic')).toBe(1);
    expect(freshScrapeCost({ kind: 'page' }, undefined)).toBe(1);
    expect(freshScrapeCost({ kind: 'pdf', pages: 3 }, 'enhanced')).toBe(
      3 + CREDIT_PRICES.enhancedProxySurcharge,
    );
  });
});

describe('scrape estimate', () => {
  const request = (extra: Record<string, unknown>) =>
    ScrapeRequest.parse({ url: 'https://example.com/', ...extra });

  it('holds 1 only for a basic-proxy scrape outside lockdown, 5 when an enhanced proxy may serve it', () => {
    expect(scrapeEstimate(request({ proxy: 'basic' }))).toBe(1);
    expect(scrapeEstimate(request({}))).toBe(5);
    expect(scrapeEstimate(request({ proxy: 'enhanced' }))).toBe(5);
    expect(scrapeEstimate(request({ proxy: 'basic', lockdown: true }))).toBe(5);
  });

  it('adds 4 for each media format asked for', () => {
    expect(scrapeEstimate(request({ proxy: 'basic', formats: ['markdown', 'audio'] }))).toBe(5);
    expect(scrapeEstimate(request({ formats: ['audio', 'video'] }))).toBe(13);
  });

  it('adds 4 for each LLM format, the onlyCleanContent pass and changeTracking json mode', () => {
    expect(scrapeEstimate(request({ proxy: 'basic', formats: ['summary'] }))).toBe(5);
    expect(
      scrapeEstimate(
        request({
          proxy: 'basic',
          onlyCleanContent: true,
          formats: [
            { type: 'json', prompt: 'name' },
            { type: 'question', question: 'Why?' },
            { type: 'highlights', query: 'price' },
            'summary',
            'markdown',
          ],
        }),
      ),
    ).toBe(21);
    expect(
      scrapeEstimate(request({ proxy: 'basic', formats: [{ type: 'changeTracking', modes: ['json'] }] })),
    ).toBe(5);
    expect(
      scrapeEstimate(request({ proxy: 'basic', formats: [{ type: 'changeTracking', modes: ['git-diff'] }] })),
    ).toBe(1);
  });
});

describe('browser session credits', () => {
  it('bills 2 per minute by the second with a one-minute minimum', () => {
    expect(browserSessionCredits(0)).toBe(2);
    expect(browserSessionCredits(90_000)).toBe(3);
    expect(browserSessionCredits(10 * 60_000)).toBe(20);
  });

  it('bills a session in which an interact prompt ran at 7 per minute (one minute at least)', () => {
    expect(browserSessionCredits(0, true)).toBe(7);
    expect(browserSessionCredits(90_000, true)).toBe(11);
    expect(browserSessionCredits(10 * 60_000, true)).toBe(70);
    expect(browserSessionCredits(10 * 60_000, false)).toBe(20);
  });
});
