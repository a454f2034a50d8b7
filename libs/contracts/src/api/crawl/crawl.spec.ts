import {
  BatchScrapeRequest,
  CrawlParamsPreviewRequest,
  CrawlRequest,
  MapRequest,
  TeamActivityQuery,
  TokenUsageQuery,
} from '../../index';

describe('CrawlRequest', () => {
  it('applies defaults, including full scrapeOptions defaults', () => {
    const req = CrawlRequest.parse({ url: 'https://example.com' });
    expect(req).toMatchObject({
      sitemap: 'include',
      limit: 10000,
      crawlEntireDomain: false,
      allowExternalLinks: false,
      allowSubdomains: false,
      ignoreRobotsTxt: false,
      zeroDataRetention: false,
    });
    expect(req.scrapeOptions.formats).toEqual(['markdown']);
    expect(req.scrapeOptions.timeout).toBe(60000);
  });

  it('rejects url and zeroDataRetention inside scrapeOptions, and bad regexes', () => {
    expect(
      CrawlRequest.safeParse({ url: 'https://e.com', scrapeOptions: { url: 'https://e.com' } }).success,
    ).toBe(false);
    expect(
      CrawlRequest.safeParse({ url: 'https://e.com', scrapeOptions: { zeroDataRetention: true } }).success,
    ).toBe(false);
    expect(CrawlRequest.safeParse({ url: 'https://e.com', excludePaths: ['[a-'] }).success).toBe(false);
    expect(CrawlRequest.safeParse({ url: 'https://e.com', sitemap: 'maybe' }).success).toBe(false);
  });

  it('normalises the webhook string', () => {
    expect(CrawlRequest.parse({ url: 'https://e.com', webhook: 'https://h.example.com' }).webhook).toEqual({
      url: 'https://h.example.com',
    });
  });

  it('limits the preview prompt to 10000 characters', () => {
    expect(
      CrawlParamsPreviewRequest.safeParse({ url: 'https://e.com', prompt: 'x'.repeat(10001) }).success,
    ).toBe(false);
    expect(CrawlParamsPreviewRequest.safeParse({ url: 'https://e.com' }).success).toBe(false);
  });
});

describe('BatchScrapeRequest', () => {
  it('takes scrape options at the top level', () => {
    const req = BatchScrapeRequest.parse({ urls: ['https://a.com'], formats: ['html'], timeout: 5000 });
    expect(req).toMatchObject({ urls: ['https://a.com'], formats: ['html'], timeout: 5000, invalidURLs: [] });
  });

  it('fails on an invalid URL unless ignoreInvalidURLs, which sets it aside', () => {
    const bad = BatchScrapeRequest.safeParse({ urls: ['https://a.com', 'not a url'] });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.error.issues[0].path).toEqual(['urls', 1]);
    const req = BatchScrapeRequest.parse({ urls: ['https://a.com', 'not a url'], ignoreInvalidURLs: true });
    expect(req.urls).toEqual(['https://a.com']);
    expect(req.invalidURLs).toEqual(['not a url']);
    expect(BatchScrapeRequest.safeParse({ urls: ['not a url'], ignoreInvalidURLs: true }).success).toBe(
      false,
    );
    expect(BatchScrapeRequest.safeParse({ urls: [] }).success).toBe(false);
  });
});

describe('MapRequest', () => {
  it('applies Firecrawl v2 defaults and the limit range', () => {
    expect(MapRequest.parse({ url: 'https://e.com' })).toMatchObject({
      sitemap: 'include',
      includeSubdomains: true,
      ignoreQueryParameters: true,
      limit: 5000,
    });
    expect(MapRequest.safeParse({ url: 'https://e.com', limit: 100001 }).success).toBe(false);
  });
});

describe('team queries', () => {
  it('coerces the activity limit from the query string within 1..100', () => {
    expect(TeamActivityQuery.parse({})).toEqual({ limit: 50 });
    expect(TeamActivityQuery.parse({ limit: '10', endpoint: 'batch_scrape' })).toEqual({
      limit: 10,
      endpoint: 'batch_scrape',
    });
    expect(TeamActivityQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(TeamActivityQuery.safeParse({ limit: 'ten' }).success).toBe(false);
    expect(TeamActivityQuery.safeParse({ endpoint: 'unknown' }).success).toBe(false);
  });

  it('reads byApiKey from the query string', () => {
    expect(TokenUsageQuery.parse({}).byApiKey).toBe(false);
    expect(TokenUsageQuery.parse({ byApiKey: 'true' }).byApiKey).toBe(true);
    expect(TokenUsageQuery.parse({ byApiKey: 'false' }).byApiKey).toBe(false);
    expect(TokenUsageQuery.safeParse({ byApiKey: 'yes' }).success).toBe(false);
  });
});
