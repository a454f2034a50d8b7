import {
  acceptLanguage,
  buildScrapeHeaders,
  DESKTOP_USER_AGENT,
  languagesForCountry,
  MOBILE_USER_AGENT,
} from './headers';

describe('buildScrapeHeaders', () => {
  it('defaults to desktop Chrome in US English', () => {
    const h = buildScrapeHeaders();
    expect(h['User-Agent']).toBe(DESKTOP_USER_AGENT);
    expect(h['User-Agent']).toMatch(/Windows NT 10\.0.*Chrome\/\d+/);
    expect(h['Accept-Language']).toBe('en-US,en;q=0.9');
    expect(h['Sec-CH-UA-Mobile']).toBe('?0');
    expect(h.Accept).toContain('text/html');
  });

  it('uses a mobile user agent when mobile', () => {
    const h = buildScrapeHeaders({ mobile: true });
    expect(h['User-Agent']).toBe(MOBILE_USER_AGENT);
    expect(h['User-Agent']).toMatch(/Android.*Mobile Safari/);
    expect(h['Sec-CH-UA-Mobile']).toBe('?1');
    expect(h['Sec-CH-UA-Platform']).toBe('"Android"');
  });

  it.each([
    ['DE', 'de-DE,de;q=0.9,en;q=0.8'],
    ['fr', 'fr-FR,fr;q=0.9,en;q=0.8'],
    ['JP', 'ja-JP,ja;q=0.9,en;q=0.8'],
    ['GB', 'en-GB,en;q=0.9'],
    ['ZZ', 'en-US,en;q=0.9'],
  ])('derives Accept-Language from country %s', (country, expected) => {
    expect(buildScrapeHeaders({ location: { country } })['Accept-Language']).toBe(expected);
  });

  it('prefers explicit languages over the country', () => {
    const h = buildScrapeHeaders({ location: { country: 'DE', languages: ['es-MX', 'en-US'] } });
    expect(h['Accept-Language']).toBe('es-MX,es;q=0.9,en-US;q=0.8,en;q=0.7');
  });

  it('hands out a fresh object each time, distinct per device and languages', () => {
    const first = buildScrapeHeaders({ location: { country: 'DE' } });
    first['Accept-Language'] = 'changed';
    expect(buildScrapeHeaders({ location: { country: 'DE' } })['Accept-Language']).toBe(
      'de-DE,de;q=0.9,en;q=0.8',
    );
    expect(buildScrapeHeaders({ location: { country: 'DE' }, mobile: true })['User-Agent']).toBe(
      MOBILE_USER_AGENT,
    );
    expect(buildScrapeHeaders({ location: { country: 'DE', languages: ['a,b'] } })['Accept-Language']).toBe(
      'en-US,en;q=0.9',
    );
    expect(
      buildScrapeHeaders({ location: { country: 'DE', languages: ['fr', 'it'] } })['Accept-Language'],
    ).toBe('fr,it;q=0.9');
  });

  it('lets user headers override generated ones case-insensitively', () => {
    const h = buildScrapeHeaders({ userHeaders: { 'user-agent': 'MyBot/1', Cookie: 'a=b' }, mobile: true });
    expect(h['user-agent']).toBe('MyBot/1');
    expect(h['User-Agent']).toBeUndefined();
    expect(h.Cookie).toBe('a=b');
    expect(h['Accept-Language']).toBe('en-US,en;q=0.9');
  });
});

describe('acceptLanguage', () => {
  it('skips malformed tags, deduplicates and floors q at 0.1', () => {
    expect(acceptLanguage(['en', 'EN', 'bad tag!', 'de_DE'])).toBe('en,de-DE;q=0.9,de;q=0.8');
    const many = acceptLanguage(
      ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8', 'i9', 'j10', 'k11', 'l12'].map((x) => x[0] + x[0]),
    );
    expect(many.split(',').pop()).toMatch(/;q=0\.1$/);
  });

  it('falls back to en-US for an empty list', () => {
    expect(acceptLanguage([])).toBe('en-US,en;q=0.9');
  });
});

describe('languagesForCountry', () => {
  it('appends English for non-English countries only', () => {
    expect(languagesForCountry('US')).toEqual(['en-US']);
    expect(languagesForCountry('BR')).toEqual(['pt-BR', 'en']);
    expect(languagesForCountry(undefined)).toEqual(['en-US']);
  });
});
