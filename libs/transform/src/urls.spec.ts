import { bestSrcsetCandidate, UrlResolver } from './urls';

describe('UrlResolver', () => {
  const page = 'https://Example.com/a/b.html?q=1#old';
  const cases = [
    '#frag',
    '#with space',
    '?page=2',
    'c.html',
    './c',
    '../up',
    '/d/../e',
    '/plain/path_(x)?a=1&b=2#f',
    '/x?a=1&amp;b=2',
    'https://x.org',
    'https://x.org/p?q',
    'https://x.org?q',
    'HTTPS://X.ORG/Y',
    'http://x.org:80/p',
    '//cdn.example.net/i.png',
    '  /padded ',
    '/sp ace',
    "/quote'd",
    'mailto:a@b.c',
  ];

  it.each(cases)('resolves %p exactly like the WHATWG URL parser', (raw) => {
    const decoded = raw.replace(/&amp;/g, '&').trim();
    expect(new UrlResolver(page, undefined).resolve(raw)).toBe(new URL(decoded, page).href);
  });

  it('prefers <base href> (itself relative to the page) and ignores an unusable one', () => {
    expect(new UrlResolver(page, '/root/').resolve('x')).toBe('https://example.com/root/x');
    expect(new UrlResolver(page, 'http://[bad').resolve('x')).toBe('https://example.com/a/x');
  });

  it('returns null for empty or unparsable values', () => {
    const r = new UrlResolver(page, undefined);
    expect(r.resolve('   ')).toBeNull();
    expect(r.resolve('http://[::1')).toBeNull();
  });
});

describe('bestSrcsetCandidate', () => {
  it('picks the widest or densest candidate', () => {
    expect(bestSrcsetCandidate('a.jpg 320w, b.jpg 1024w, c.jpg 640w')).toBe('b.jpg');
    expect(bestSrcsetCandidate('a.jpg, b.jpg 2x')).toBe('b.jpg');
    expect(bestSrcsetCandidate('https://cdn.x/i.jpg?w=1,2 1x')).toBe('https://cdn.x/i.jpg?w=1,2');
  });
});
