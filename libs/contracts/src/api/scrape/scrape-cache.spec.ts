import { ScrapeRequest } from './scrape-request';
import { normalizeCacheUrl, scrapeCacheKey } from './scrape-cache';

const base = (extra: Record<string, unknown> = {}) =>
  ScrapeRequest.parse({ url: 'https://Example.com/a/', ...extra });

describe('scrapeCacheKey', () => {
  it('normalises the URL (fragment, query order, trailing slash, host case)', () => {
    expect(normalizeCacheUrl('https://Example.com:443/a/?b=2&a=1#top')).toBe('https://example.com/a?a=1&b=2');
    expect(normalizeCacheUrl('https://example.com/')).toBe('https://example.com/');
    expect(scrapeCacheKey(base())).toBe(scrapeCacheKey(base({ url: 'https://example.com/a#x' })));
  });

  it.each([
    ['http://a.com/x?', 'http://a.com/x'],
    ['http://a.com/x#', 'http://a.com/x'],
    ['http://a.com/x/?#', 'http://a.com/x'],
    ['http://a.com/x?b=2&a=1#f?z', 'http://a.com/x?a=1&b=2'],
    ['https://a.com/%3Fq/', 'https://a.com/%3Fq'],
    ['http://a.com/x?a=1#b', 'http://a.com/x?a=1'],
    ['HTTP://A.com:80/x', 'http://a.com/x'],
  ])('drops empty queries and fragments and keeps encoded delimiters: %s', (url, normalised) => {
    expect(normalizeCacheUrl(url)).toBe(normalised);
  });

  it('keeps the keys of existing cache entries (stored rows and gateway hot copies use them)', () => {
    expect(scrapeCacheKey(base())).toBe('b9eb899f06504ecc2b08187240dc47055c635d7da014cf5814c48818176112d1');
    const other = base({
      url: 'https://example.com/a?b=1',
      formats: ['links', 'markdown'],
      includeTags: ['p'],
      location: { country: 'DE' },
    });
    expect(scrapeCacheKey(other)).toBe('80eb1badef32103b453b2b76a4d00e58e8b64f1326469efe6accf1f79422be79');
  });

  it('is insensitive to the order of formats and tags, and to fetch-only options', () => {
    const a = base({
      formats: ['markdown', 'links'],
      includeTags: ['p', 'h1'],
      timeout: 5000,
      proxy: 'basic',
    });
    const b = base({ formats: ['links', 'markdown'], includeTags: ['h1', 'p'], skipTlsVerification: false });
    expect(scrapeCacheKey(a)).toBe(scrapeCacheKey(b));
  });

  it.each([
    ['formats', { formats: ['html'] }],
    ['onlyMainContent', { onlyMainContent: false }],
    ['includeTags', { includeTags: ['article'] }],
    ['excludeTags', { excludeTags: ['nav'] }],
    ['removeBase64Images', { removeBase64Images: false }],
    ['mobile', { mobile: true }],
    ['location country', { location: { country: 'DE' } }],
    ['location languages', { location: { country: 'US', languages: ['fr-FR'] } }],
    ['parsers', { parsers: [] }],
    ['url', { url: 'https://example.com/b' }],
  ])('changes with %s', (_name, extra) => {
    expect(scrapeCacheKey(base(extra))).not.toBe(scrapeCacheKey(base()));
  });
});
