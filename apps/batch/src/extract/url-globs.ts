import { compileUserRegex } from '@wds/contracts';

/**
 * URL globs of an extract request (`https://site/*`, `https://site/blog/*.html`): `*` stands for any
 * run of characters. A glob is expanded with the site's map (sitemap and links), keeping the URLs
 * that match it. Pure, apart from the `map` function it is given.
 */

export interface GlobExpansion {
  /** The pages to read, in request order, each once, at most `limit`. */
  urls: string[];
  /** Globs that matched no page. */
  empty: string[];
}

export interface ExpandOptions {
  limit: number;
  /** Subdomains of a glob's host match too (`https://site/*` takes `https://docs.site/x`). */
  includeSubdomains: boolean;
  /** The site's URLs as map finds them from `url` (the glob's part before its first `*`). */
  map(url: string): Promise<string[]>;
}

export function isGlob(url: string): boolean {
  return url.includes('*');
}

/** Where to map a glob from: its text before the last `/` before the first `*` (the site root at least). */
export function globBase(glob: string): string {
  const star = glob.indexOf('*');
  const head = glob.slice(0, star);
  const schemeEnd = head.indexOf('://') + 3;
  const slash = head.lastIndexOf('/');
  if (slash < schemeEnd) {
    // The star is in the host (`https://*.site/`): map the registrable rest of it.
    const afterStar = glob.slice(star + 1).replace(/^\.+/, '');
    const host = afterStar.split('/')[0];
    return `${glob.slice(0, schemeEnd)}${host}/`;
  }
  // `https://site/blog/*` maps from `https://site/blog`: the section's own page (which links to its
  // pages) is usually there, while `/blog/` often is not; the sitemap is read either way.
  const base = head.slice(0, slash + 1);
  return slash > schemeEnd && base.length > schemeEnd + 1 && base.indexOf('/', schemeEnd) < slash
    ? base.slice(0, -1)
    : base;
}

/**
 * Whether `url` matches the glob (scheme, host and path; a trailing `/` is optional). Matched with
 * RE2's algorithm (`compileUserRegex`, as crawl paths are: time linear in the URL): with JavaScript's backtracking engine a glob of
 * many stars (`/*a*a*a…b`) against a URL of the same letters took 30 s at 30 stars, doubling with
 * each one more, and held the batch service's event loop (every team's jobs) meanwhile.
 */
export function globMatcher(glob: string, includeSubdomains: boolean): (url: string) => boolean {
  const { host: globHost, rest: globRest, scheme } = splitUrl(glob);
  const hostRe = compileUserRegex(`^${toRegex(globHost.toLowerCase(), '[^/]*')}$`);
  const restRe = compileUserRegex(`^${toRegex(globRest, '.*')}/?$`);
  return (url: string) => {
    const u = splitUrl(url);
    if (u.scheme !== scheme && !(scheme === 'http' && u.scheme === 'https')) return false;
    const host = u.host.toLowerCase();
    const hostOk =
      hostRe.test(host) ||
      (includeSubdomains && !globHost.includes('*') && host.endsWith(`.${globHost.toLowerCase()}`));
    return hostOk && (restRe.test(u.rest) || restRe.test(u.rest.replace(/\/$/, '')));
  };
}

/** The pages of an extract request: plain URLs as given, globs expanded through map. */
export async function expandUrls(urls: readonly string[], opts: ExpandOptions): Promise<GlobExpansion> {
  const out: string[] = [];
  const seen = new Set<string>();
  const empty: string[] = [];
  const add = (url: string) => {
    if (out.length >= opts.limit || seen.has(url)) return;
    seen.add(url);
    out.push(url);
  };
  for (const url of urls) {
    if (!isGlob(url)) {
      add(url);
      continue;
    }
    if (out.length >= opts.limit) break;
    const matches = globMatcher(url, opts.includeSubdomains);
    const found = (await opts.map(globBase(url))).filter(matches);
    if (found.length === 0) empty.push(url);
    for (const f of found) add(f);
  }
  return { urls: out, empty };
}

function splitUrl(url: string): { scheme: string; host: string; rest: string } {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i.exec(url);
  if (!m) return { scheme: '', host: '', rest: url };
  return { scheme: m[1].toLowerCase(), host: m[2], rest: m[3] || '/' };
}

function toRegex(glob: string, star: string): string {
  return glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join(star);
}
