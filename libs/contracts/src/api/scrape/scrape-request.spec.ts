import {
  DEFAULT_MAX_AGE_MS,
  LOCKDOWN_MAX_AGE_MS,
  ScrapeOptions,
  ScrapeRequest,
  findFormat,
  normalizeFormats,
} from '../../index';

describe('ScrapeRequest', () => {
  it('applies the defaults of the spec', () => {
    const req = ScrapeRequest.parse({ url: 'https://example.com/a' });
    expect(req).toEqual({
      url: 'https://example.com/a',
      formats: ['markdown'],
      onlyMainContent: true,
      onlyCleanContent: false,
      maxAge: DEFAULT_MAX_AGE_MS,
      waitFor: 0,
      mobile: false,
      skipTlsVerification: true,
      timeout: 60000,
      parsers: ['pdf'],
      location: { country: 'US' },
      removeBase64Images: true,
      blockAds: true,
      proxy: 'auto',
      storeInCache: true,
      lockdown: false,
      zeroDataRetention: false,
    });
  });

  it('does not share default arrays between parses', () => {
    const a = ScrapeRequest.parse({ url: 'https://example.com' });
    a.formats.push('html');
    expect(ScrapeRequest.parse({ url: 'https://example.com' }).formats).toEqual(['markdown']);
  });

  it('enforces the timeout range 1000..300000', () => {
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', timeout: 999 }).success).toBe(false);
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', timeout: 300001 }).success).toBe(false);
    expect(ScrapeRequest.parse({ url: 'https://example.com', timeout: 1000 }).timeout).toBe(1000);
    expect(ScrapeRequest.parse({ url: 'https://example.com', timeout: 300000 }).timeout).toBe(300000);
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', timeout: 1500.5 }).success).toBe(false);
  });

  it('rejects unknown keys but accepts the SDK labels origin and integration', () => {
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', onlyMainContnet: false }).success).toBe(
      false,
    );
    const ok = ScrapeRequest.parse({ url: 'https://example.com', origin: 'js-sdk@4.0.0', integration: 'x' });
    expect(ok.origin).toBe('js-sdk@4.0.0');
    expect(ok.integration).toBe('x');
  });

  it('rejects unknown keys in nested objects', () => {
    expect(
      ScrapeRequest.safeParse({ url: 'https://example.com', location: { country: 'DE', city: 'Berlin' } })
        .success,
    ).toBe(false);
  });

  it('adds http:// to a URL without scheme and refuses non-http schemes', () => {
    expect(ScrapeRequest.parse({ url: ' example.com/x ' }).url).toBe('http://example.com/x');
    expect(ScrapeRequest.safeParse({ url: 'ftp://example.com' }).success).toBe(false);
    expect(ScrapeRequest.safeParse({ url: 'javascript:alert(1)' }).success).toBe(false);
    expect(ScrapeRequest.safeParse({ url: '' }).success).toBe(false);
  });

  it('accepts every format kind as string or object', () => {
    const req = ScrapeRequest.parse({
      url: 'https://example.com',
      formats: [
        'markdown',
        'summary',
        'html',
        'rawHtml',
        'links',
        'images',
        'branding',
        'audio',
        'video',
        { type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 1280, height: 800 } },
        { type: 'json', schema: { type: 'object' }, prompt: 'extract' },
        { type: 'changeTracking', modes: ['git-diff'], tag: 'prod' },
        { type: 'question', question: 'What is it?' },
        { type: 'highlights', query: 'pricing' },
        { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] },
      ],
    });
    expect(req.formats).toHaveLength(15);
    expect(findFormat(req.formats, 'screenshot')).toEqual({
      type: 'screenshot',
      fullPage: true,
      quality: 80,
      viewport: { width: 1280, height: 800 },
    });
    expect(findFormat(req.formats, 'markdown')).toEqual({ type: 'markdown' });
    expect(findFormat(req.formats, 'question')?.question).toBe('What is it?');
    expect(normalizeFormats(['links']).map((f) => f.type)).toEqual(['links']);
  });

  it('rejects formats that need options when given as a string, and unknown formats', () => {
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', formats: ['question'] }).success).toBe(
      false,
    );
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', formats: ['pdf'] }).success).toBe(false);
    expect(
      ScrapeRequest.safeParse({ url: 'https://example.com', formats: [{ type: 'product' }] }).success,
    ).toBe(false);
  });

  it('validates actions with Firecrawl v2 field names, at most 50', () => {
    const actions = [
      { type: 'wait', milliseconds: 500 },
      { type: 'wait', selector: '#main' },
      { type: 'click', selector: 'button', all: true },
      { type: 'write', text: 'hello' },
      { type: 'press', key: 'Enter' },
      { type: 'scroll', direction: 'up', selector: '.list' },
      { type: 'screenshot', fullPage: true },
      { type: 'scrape' },
      { type: 'executeJavascript', script: 'return 1' },
      { type: 'pdf', format: 'A4', landscape: true, scale: 1 },
    ];
    expect(ScrapeRequest.parse({ url: 'https://example.com', actions }).actions).toHaveLength(10);
    expect(
      ScrapeRequest.parse({ url: 'https://example.com', actions: [{ type: 'scroll' }] }).actions,
    ).toEqual([{ type: 'scroll', direction: 'down' }]);
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'scrape' }));
    expect(ScrapeRequest.safeParse({ url: 'https://example.com', actions: tooMany }).success).toBe(false);
    expect(
      ScrapeRequest.safeParse({
        url: 'https://example.com',
        actions: [{ type: 'wait', milliseconds: 1, selector: 'a' }],
      }).success,
    ).toBe(false);
    expect(
      ScrapeRequest.safeParse({ url: 'https://example.com', actions: [{ type: 'hover' }] }).success,
    ).toBe(false);
  });

  it('forces storeInCache off with actions or headers and stretches maxAge under lockdown', () => {
    expect(ScrapeRequest.parse({ url: 'https://e.com', headers: { Cookie: 'a=b' } }).storeInCache).toBe(
      false,
    );
    expect(ScrapeRequest.parse({ url: 'https://e.com', actions: [{ type: 'scrape' }] }).storeInCache).toBe(
      false,
    );
    expect(ScrapeRequest.parse({ url: 'https://e.com', lockdown: true }).maxAge).toBe(LOCKDOWN_MAX_AGE_MS);
    expect(ScrapeRequest.parse({ url: 'https://e.com', lockdown: true, maxAge: 5 }).maxAge).toBe(5);
  });

  it('normalises location and profile', () => {
    const req = ScrapeRequest.parse({
      url: 'https://e.com',
      location: { country: 'de', languages: ['de-DE'] },
      profile: { name: 'shop' },
    });
    expect(req.location).toEqual({ country: 'DE', languages: ['de-DE'] });
    expect(req.profile).toEqual({ name: 'shop', saveChanges: true });
    expect(ScrapeRequest.safeParse({ url: 'https://e.com', proxy: 'stealth' }).success).toBe(false);
  });

  it('is idempotent: parsing its own output yields the same value', () => {
    const once = ScrapeRequest.parse({ url: 'e.com', headers: { a: 'b' }, formats: ['html'], origin: 'x' });
    expect(ScrapeRequest.parse(once)).toEqual(once);
  });

  it('ScrapeOptions has no url nor zeroDataRetention', () => {
    expect(ScrapeOptions.safeParse({ url: 'https://e.com' }).success).toBe(false);
    expect(ScrapeOptions.safeParse({ zeroDataRetention: true }).success).toBe(false);
    expect(ScrapeOptions.parse({}).formats).toEqual(['markdown']);
  });
});
