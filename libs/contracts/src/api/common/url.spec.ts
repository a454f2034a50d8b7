import {
  BatchScrapeRequest,
  CrawlRequest,
  MapRequest,
  ScrapeRequest,
  formatZodError,
  isPossibleHostname,
  normalizeHttpUrl,
} from '../../index';

const LABEL = 'a'.repeat(63);
/** 5 labels of 63 + ".com": 323 characters, each label legal, the whole name not. */
const LONG_HOST = `${Array(5).fill(LABEL).join('.')}.com`;

describe('HttpUrl host names', () => {
  it('refuses a host name longer than 253 characters or with a label longer than 63', () => {
    expect(normalizeHttpUrl(`http://${LONG_HOST}/`)).toBeNull();
    expect(normalizeHttpUrl(`https://${'b'.repeat(64)}.com/`)).toBeNull();
    expect(normalizeHttpUrl('http://a..b.com/')).toBeNull();
    expect(isPossibleHostname(LONG_HOST)).toBe(false);
  });

  it('keeps names at the limits, a trailing root dot, IP literals and IDNs', () => {
    // 3 labels of 63 + 1 of 61 + 3 dots = 253 characters.
    const atLimit = `${LABEL}.${LABEL}.${LABEL}.${'c'.repeat(61)}`;
    expect(atLimit).toHaveLength(253);
    expect(normalizeHttpUrl(`http://${atLimit}/`)).toBe(`http://${atLimit}/`);
    expect(normalizeHttpUrl(`http://${LABEL}.com./`)).toBe(`http://${LABEL}.com./`);
    expect(normalizeHttpUrl('http://127.0.0.1:8080/a')).toBe('http://127.0.0.1:8080/a');
    expect(normalizeHttpUrl('http://[::1]/')).toBe('http://[::1]/');
    expect(normalizeHttpUrl('https://bücher.example/')).toBe('https://bücher.example/');
    expect(normalizeHttpUrl('example.com')).toBe('http://example.com');
  });

  it('answers a message naming url on every request that takes a URL', () => {
    const url = `http://${LONG_HOST}/`;
    for (const schema of [ScrapeRequest, CrawlRequest, MapRequest]) {
      const result = schema.safeParse({ url });
      expect(result.success).toBe(false);
      if (!result.success) {
        expect(formatZodError(result.error).message).toMatch(/^url: Invalid URL: the host name cannot exist/);
      }
    }
    const hook = CrawlRequest.safeParse({ url: 'https://example.com', webhook: { url } });
    expect(hook.success).toBe(false);
    const batch = BatchScrapeRequest.parse({ urls: [url, 'https://example.com'], ignoreInvalidURLs: true });
    expect(batch).toMatchObject({ urls: ['https://example.com'], invalidURLs: [url] });
  });
});
