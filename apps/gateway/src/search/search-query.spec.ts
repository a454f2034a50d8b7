import { parseTbs, SearchRequest, type SearchRequestInput } from '@wds/contracts';
import {
  buildSourceQuery,
  categoryOf,
  countryOfLocation,
  languageOfCountry,
  passesDomains,
  sourcesOf,
} from './search-query';

const req = (input: Partial<SearchRequestInput>) => SearchRequest.parse({ query: 'kettle', ...input });

describe('tbs', () => {
  it('maps qdr ranges to the smallest engine range that covers them', () => {
    expect(parseTbs('qdr:h')).toEqual({ timeRange: 'day', newestFirst: false });
    expect(parseTbs('qdr:d')).toEqual({ timeRange: 'day', newestFirst: false });
    expect(parseTbs('qdr:d3')).toEqual({ timeRange: 'week', newestFirst: false });
    expect(parseTbs('qdr:w')).toEqual({ timeRange: 'week', newestFirst: false });
    expect(parseTbs('qdr:m6,sbd:1')).toEqual({ timeRange: 'year', newestFirst: true });
    expect(parseTbs('qdr:y5')).toEqual({ timeRange: 'year', newestFirst: false });
    expect(parseTbs('sbd:1')).toEqual({ timeRange: undefined, newestFirst: true });
  });

  it('refuses what has no equivalent, in the request schema too', () => {
    expect(parseTbs('cdr:1,cd_min:1/1/2024,cd_max:2/1/2024')).toMatch(/custom date ranges/);
    expect(parseTbs('qdr:x')).toMatch(/not understood/);
    expect(SearchRequest.safeParse({ query: 'k', tbs: 'qdr:z' }).success).toBe(false);
    expect(SearchRequest.safeParse({ query: 'k', sources: [{ type: 'news', tbs: 'cdr:1' }] }).success).toBe(
      false,
    );
  });
});

describe('the request schema', () => {
  it('takes what both SDKs send', () => {
    // firecrawl-py's defaults and its shapes for sources, categories and scrape options.
    const py = SearchRequest.parse({
      query: 'q',
      limit: 5,
      timeout: 300000,
      sources: [{ type: 'web' }, { type: 'news' }],
      categories: [{ type: 'github' }],
      ignoreInvalidURLs: true,
      scrapeOptions: { onlyMainContent: true, fastMode: false, formats: ['markdown'], maxAge: 14400000 },
      origin: 'python-sdk@4.55.0',
    });
    expect(py.sources).toEqual([{ type: 'web' }, { type: 'news' }]);
    expect(py.scrapeOptions?.formats).toEqual(['markdown']);
    const js = SearchRequest.parse({
      query: 'q',
      sources: ['web', 'images'],
      categories: ['pdf'],
      origin: 'js-sdk@4',
    });
    expect(js).toMatchObject({ limit: 10, timeout: 60000, ignoreInvalidURLs: false });
  });

  it('refuses a bad request with the field named', () => {
    for (const bad of [
      { query: '' },
      { query: 'x'.repeat(501) },
      { query: 'q', limit: 0 },
      { query: 'q', limit: 101 },
      { query: 'q', sources: ['maps'] },
      { query: 'q', categories: ['videos'] },
      { query: 'q', includeDomains: ['not a domain'] },
      { query: 'q', country: 'Germany' },
      { query: 'q', timeout: 999 },
      { query: 'q', threatProtection: { mode: 'normal' } },
      { query: 'q', domainTools: true },
      { query: 'q', scrapeOptions: { formats: ['nope'] } },
      { query: 'q', typo: true },
    ]) {
      expect([bad, SearchRequest.safeParse(bad).success]).toEqual([bad, false]);
    }
  });

  it('normalises domains as users write them', () => {
    expect(
      req({ includeDomains: ['https://www.GitHub.com/acme', 'docs.example.org'] }).includeDomains,
    ).toEqual(['github.com', 'docs.example.org']);
  });
});

describe('the engine query of a source', () => {
  it('carries the filters as operators, each source its own tbs and location', () => {
    const r = req({
      includeDomains: ['a.com', 'b.org'],
      excludeDomains: ['c.net'],
      categories: ['github', 'pdf'],
      tbs: 'qdr:w',
      country: 'de',
      safe: true,
      sources: ['web', { type: 'news', tbs: 'qdr:d', location: 'Paris, France' }, 'web'],
    });
    const sources = sourcesOf(r);
    expect(sources.map((s) => s.type)).toEqual(['web', 'news']);
    const web = buildSourceQuery(r, sources[0]);
    expect(web.query).toEqual({
      source: 'web',
      q: 'kettle (site:a.com OR site:b.org) -site:c.net (site:github.com OR filetype:pdf)',
      category: 'general',
      timeRange: 'week',
      newestFirst: false,
      language: 'de-DE',
      safesearch: 2,
    });
    const news = buildSourceQuery(r, sources[1]);
    // Categories are about web pages; the news source keeps the domain filters.
    expect(news.query).toMatchObject({
      q: 'kettle (site:a.com OR site:b.org) -site:c.net',
      category: 'news',
      timeRange: 'day',
      language: 'fr-FR',
    });
    expect(news.warnings).toEqual([]);
  });

  it('warns of a location that names no country and leaves the defaults alone', () => {
    const r = req({ location: 'Atlantis' });
    const { query, warnings } = buildSourceQuery(r, sourcesOf(r)[0]);
    expect(query).toMatchObject({
      q: 'kettle',
      language: undefined,
      safesearch: undefined,
      timeRange: undefined,
    });
    expect(warnings).toEqual([expect.stringMatching(/Atlantis.*names no country/)]);
  });

  it('reads countries from codes, names and places', () => {
    expect(countryOfLocation('DE')).toBe('DE');
    expect(countryOfLocation('germany')).toBe('DE');
    expect(countryOfLocation('San Francisco, California, United States')).toBe('US');
    expect(countryOfLocation('UK')).toBe('GB');
    expect(countryOfLocation('Narnia')).toBeUndefined();
    expect(languageOfCountry('JP')).toBe('ja-JP');
    expect(languageOfCountry('KE')).toBe('en-KE');
  });
});

describe('result filters', () => {
  it('keeps a domain and its subdomains only', () => {
    const r = req({ includeDomains: ['example.com'], excludeDomains: ['ads.example.com'] });
    expect(passesDomains(new URL('https://example.com/a'), r)).toBe(true);
    expect(passesDomains(new URL('https://www.example.com/a'), r)).toBe(true);
    expect(passesDomains(new URL('https://docs.example.com/a'), r)).toBe(true);
    expect(passesDomains(new URL('https://ads.example.com/a'), r)).toBe(false);
    expect(passesDomains(new URL('https://notexample.com/a'), r)).toBe(false);
  });

  it('labels results with the asked category they belong to', () => {
    const all = ['github', 'research', 'pdf'] as const;
    expect(categoryOf(new URL('https://github.com/acme/kettle'), all)).toBe('github');
    expect(categoryOf(new URL('https://gist.github.com/x'), all)).toBe('github');
    expect(categoryOf(new URL('https://arxiv.org/abs/2401.00001'), all)).toBe('research');
    expect(categoryOf(new URL('https://example.org/paper.PDF'), all)).toBe('pdf');
    expect(categoryOf(new URL('https://example.org/paper.pdf'), ['github'])).toBeUndefined();
    expect(categoryOf(new URL('https://githubusercontent.com/x'), ['github'])).toBeUndefined();
  });
});
