import { parseProxyList, ProxyPool, redactProxyUrl } from './proxy';

describe('parseProxyList', () => {
  it('splits, trims and skips blanks', () => {
    expect(parseProxyList(' http://p1:8080 ,, https://user:pa%40ss@p2.example:3128 ')).toEqual([
      'http://p1:8080',
      'https://user:pa%40ss@p2.example:3128',
    ]);
    expect(parseProxyList(undefined)).toEqual([]);
    expect(parseProxyList('')).toEqual([]);
  });

  it('rejects malformed entries without revealing passwords', () => {
    expect(() => parseProxyList('socks5://u:secret@p:1080')).toThrow(/unsupported proxy scheme socks5:/);
    expect(() => parseProxyList('socks5://u:secret@p:1080')).not.toThrow(/secret/);
    expect(() => parseProxyList('p1:8080')).toThrow(/unsupported proxy scheme|invalid proxy URL/);
    expect(() => parseProxyList('not a url')).toThrow(/invalid proxy URL/);
    expect(() => parseProxyList('http://u:secret@p:8080/path')).toThrow(/must not have a path/);
    expect(() => parseProxyList('http://u:secret@p:8080/path')).not.toThrow(/secret/);
  });
});

describe('redactProxyUrl', () => {
  it('masks the password', () => {
    expect(redactProxyUrl('http://user:secret@p:1')).toBe('http://user:***@p:1/');
    expect(redactProxyUrl('http://user:secret@ bad')).not.toContain('secret');
  });
});

describe('ProxyPool', () => {
  it('goes round-robin', () => {
    const pool = new ProxyPool(['http://a:1', 'http://b:1', 'http://c:1']);
    expect([1, 2, 3, 4, 5].map(() => pool.next())).toEqual([
      'http://a:1',
      'http://b:1',
      'http://c:1',
      'http://a:1',
      'http://b:1',
    ]);
    expect(pool.size).toBe(3);
  });

  it('returns undefined when empty', () => {
    expect(new ProxyPool([]).next()).toBeUndefined();
  });
});
