import { expandUrls, globBase, globMatcher } from './url-globs';

describe('URL globs', () => {
  it('maps a glob from its text before the first star', () => {
    expect(globBase('https://site.test/*')).toBe('https://site.test/');
    expect(globBase('https://site.test/blog/*')).toBe('https://site.test/blog');
    expect(globBase('https://site.test/blog/2024/*')).toBe('https://site.test/blog/2024');
    expect(globBase('https://site.test/blog/post-*.html')).toBe('https://site.test/blog');
    expect(globBase('https://site.test/*.html')).toBe('https://site.test/');
    expect(globBase('https://*.site.test/docs/*')).toBe('https://site.test/');
  });

  it('matches scheme, host and path, with subdomains on request', () => {
    const m = globMatcher('https://site.test/blog/*', false);
    expect(m('https://site.test/blog/a')).toBe(true);
    expect(m('https://site.test/blog/a/b?x=1')).toBe(true);
    expect(m('https://site.test/blog/')).toBe(true);
    expect(m('https://site.test/about')).toBe(false);
    expect(m('https://docs.site.test/blog/a')).toBe(false);
    expect(m('https://evil.test/site.test/blog/a')).toBe(false);
    expect(globMatcher('https://site.test/blog/*', true)('https://docs.site.test/blog/a')).toBe(true);
    expect(globMatcher('https://site.test/*.html', false)('https://site.test/a/b.html')).toBe(true);
    expect(globMatcher('https://site.test/*.html', false)('https://site.test/a/b.htm')).toBe(false);
  });

  it('matches a glob of many stars in time linear in the URL', () => {
    // With a backtracking engine: 30 s at 30 stars, twice that for each one more.
    const match = globMatcher(`https://site.com/${'*a'.repeat(40)}b`, false);
    expect(match(`https://site.com/${'a'.repeat(60)}`)).toBe(false);
    expect(match(`https://site.com/${'a'.repeat(60)}b`)).toBe(true);
  });

  it('expands globs through map in request order, each URL once, within the limit', async () => {
    const mapped: string[] = [];
    const site = [
      'https://site.test/',
      'https://site.test/blog/a',
      'https://site.test/blog/b',
      'https://site.test/about',
      'https://site.test/blog/c',
    ];
    const map = async (url: string) => {
      mapped.push(url);
      return site;
    };
    const r = await expandUrls(
      ['https://site.test/about', 'https://site.test/blog/*', 'https://site.test/none/*'],
      {
        limit: 3,
        includeSubdomains: true,
        map,
      },
    );
    expect(r.urls).toEqual([
      'https://site.test/about',
      'https://site.test/blog/a',
      'https://site.test/blog/b',
    ]);
    // The limit was reached before the last glob: it is not mapped.
    expect(mapped).toEqual(['https://site.test/blog']);

    const all = await expandUrls(
      ['https://site.test/blog/*', 'https://site.test/blog/a', 'https://site.test/x/*'],
      {
        limit: 10,
        includeSubdomains: false,
        map,
      },
    );
    expect(all.urls).toEqual([
      'https://site.test/blog/a',
      'https://site.test/blog/b',
      'https://site.test/blog/c',
    ]);
    expect(all.empty).toEqual(['https://site.test/x/*']);
  });
});
