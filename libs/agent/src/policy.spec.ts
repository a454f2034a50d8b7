import { checkNavigation, domainsOf, hostAllowed } from './policy';

describe('navigation policy', () => {
  it('resolves relative URLs against the page and allows http(s)', () => {
    expect(checkNavigation('/next?page=2', 'https://shop.example/list', {})).toEqual({
      ok: true,
      url: 'https://shop.example/next?page=2',
    });
    expect(checkNavigation('https://other.example/', 'about:blank', {}).ok).toBe(true);
  });

  it('refuses other schemes, credentials and garbage', () => {
    for (const u of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'chrome://settings',
      'data:text/html,x',
      'ftp://x.example/',
    ]) {
      expect(checkNavigation(u, 'https://a.example/', {}).ok).toBe(false);
    }
    expect(checkNavigation('https://user:pw@a.example/', 'about:blank', {}).ok).toBe(false);
    expect(checkNavigation('not a url', 'about:blank', {}).ok).toBe(false);
  });

  it('keeps a run on its allowed domains and their subdomains', () => {
    const policy = { allowedDomains: ['shop.example', '*.docs.example'] };
    expect(checkNavigation('https://shop.example/a', 'about:blank', policy).ok).toBe(true);
    expect(checkNavigation('https://www.shop.example/a', 'about:blank', policy).ok).toBe(true);
    expect(checkNavigation('https://api.docs.example/', 'about:blank', policy).ok).toBe(true);
    const out = checkNavigation('https://evil.example/', 'https://shop.example/', policy);
    expect(out).toEqual({ ok: false, reason: expect.stringContaining('outside the allowed domains') });
    expect(checkNavigation('https://shop.example.evil.example/', 'about:blank', policy).ok).toBe(false);
    expect(hostAllowed('notshop.example', ['shop.example'])).toBe(false);
  });

  it('derives domains from start URLs', () => {
    expect(domainsOf(['https://www.a.example/x', 'http://b.example:8080/', 'nope'])).toEqual([
      'a.example',
      'b.example',
    ]);
  });
});
