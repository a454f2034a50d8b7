import {
  parseTbs,
  type SearchCategory,
  type SearchRequest,
  type SearchSourceType,
  type SearchTimeRange,
} from '@wds/contracts';

/** What one source of a search asks the engine (SearXNG's query parameters, in our words). */
export interface SourceQuery {
  source: SearchSourceType;
  /** The text sent as `q`: the user's query and the site/filetype operators of the filters. */
  q: string;
  /** SearXNG category: general (web), news, images. */
  category: 'general' | 'news' | 'images';
  timeRange?: SearchTimeRange;
  newestFirst: boolean;
  /** SearXNG `language` (`de-DE`), undefined for the instance's default. */
  language?: string;
  /** SearXNG `safesearch`: 0 off, 2 strict; undefined for the instance's default. */
  safesearch?: 0 | 2;
}

/** Hosts whose pages count as research (papers, preprints, abstracts). */
const RESEARCH_HOSTS = [
  'arxiv.org',
  'scholar.google.com',
  'semanticscholar.org',
  'pubmed.ncbi.nlm.nih.gov',
  'ncbi.nlm.nih.gov',
  'biorxiv.org',
  'medrxiv.org',
  'researchgate.net',
  'openreview.net',
  'aclanthology.org',
  'dl.acm.org',
  'ieeexplore.ieee.org',
  'link.springer.com',
  'sciencedirect.com',
  'nature.com',
  'jstor.org',
  'ssrn.com',
  'plos.org',
  'doi.org',
];

/** The operators that ask the engine for a category (they are also checked on every result). */
const CATEGORY_OPERATORS: Record<SearchCategory, string> = {
  github: 'site:github.com',
  research: RESEARCH_HOSTS.slice(0, 6)
    .map((h) => `site:${h}`)
    .join(' OR '),
  pdf: 'filetype:pdf',
};

/**
 * Countries the `country`/`location` of a search can name, with their main language: what SearXNG's
 * `language` takes (`de-DE`). A country not listed searches in English for that country (`en-XX`).
 */
const COUNTRIES: Record<string, [name: string, language: string]> = {
  US: ['united states', 'en'],
  GB: ['united kingdom', 'en'],
  CA: ['canada', 'en'],
  AU: ['australia', 'en'],
  NZ: ['new zealand', 'en'],
  IE: ['ireland', 'en'],
  IN: ['india', 'en'],
  SG: ['singapore', 'en'],
  ZA: ['south africa', 'en'],
  DE: ['germany', 'de'],
  AT: ['austria', 'de'],
  CH: ['switzerland', 'de'],
  FR: ['france', 'fr'],
  BE: ['belgium', 'fr'],
  ES: ['spain', 'es'],
  MX: ['mexico', 'es'],
  AR: ['argentina', 'es'],
  CO: ['colombia', 'es'],
  CL: ['chile', 'es'],
  IT: ['italy', 'it'],
  PT: ['portugal', 'pt'],
  BR: ['brazil', 'pt'],
  NL: ['netherlands', 'nl'],
  SE: ['sweden', 'sv'],
  NO: ['norway', 'nb'],
  DK: ['denmark', 'da'],
  FI: ['finland', 'fi'],
  PL: ['poland', 'pl'],
  CZ: ['czechia', 'cs'],
  HU: ['hungary', 'hu'],
  RO: ['romania', 'ro'],
  GR: ['greece', 'el'],
  TR: ['turkey', 'tr'],
  UA: ['ukraine', 'uk'],
  RU: ['russia', 'ru'],
  JP: ['japan', 'ja'],
  KR: ['south korea', 'ko'],
  CN: ['china', 'zh'],
  TW: ['taiwan', 'zh'],
  HK: ['hong kong', 'zh'],
  ID: ['indonesia', 'id'],
  VN: ['vietnam', 'vi'],
  TH: ['thailand', 'th'],
  IL: ['israel', 'he'],
  SA: ['saudi arabia', 'ar'],
  AE: ['united arab emirates', 'ar'],
  EG: ['egypt', 'ar'],
};
const COUNTRY_BY_NAME = new Map(Object.entries(COUNTRIES).map(([code, [name]]) => [name, code]));
const COUNTRY_ALIASES: Record<string, string> = { usa: 'US', uk: 'GB', 'great britain': 'GB', england: 'GB' };

/**
 * The country a `location` names: a two-letter code, a country name (`Germany`), or a place ending
 * in one (`Berlin, Germany`). Undefined when it names none this service knows.
 */
export function countryOfLocation(location: string): string | undefined {
  const text = location.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(text) && COUNTRIES[text.toUpperCase()]) return text.toUpperCase();
  const last = text.split(',').pop()!.trim();
  return COUNTRY_BY_NAME.get(last) ?? COUNTRY_ALIASES[last] ?? COUNTRY_BY_NAME.get(text);
}

/** SearXNG's language for a country code (`DE` → `de-DE`, an unlisted `XY` → `en-XY`). */
export function languageOfCountry(country: string): string {
  const code = country.toUpperCase();
  return `${COUNTRIES[code]?.[1] ?? 'en'}-${code}`;
}

/** The sources a search asks, each once, with its own tbs and location where it has them. */
export function sourcesOf(
  request: SearchRequest,
): { type: SearchSourceType; tbs?: string; location?: string }[] {
  const seen = new Map<SearchSourceType, { type: SearchSourceType; tbs?: string; location?: string }>();
  for (const s of request.sources) {
    const source = typeof s === 'string' ? { type: s } : s;
    if (!seen.has(source.type)) seen.set(source.type, source);
  }
  return [...seen.values()];
}

export function categoriesOf(request: SearchRequest): SearchCategory[] {
  return [...new Set((request.categories ?? []).map((c) => (typeof c === 'string' ? c : c.type)))];
}

/**
 * The engine query of one source, and what the caller should be warned of (a location that names no
 * country). Domain and category filters become operators in `q` (engines that honour them return
 * more of what is wanted); results are filtered by `keepResult` whatever the engine did with them.
 */
export function buildSourceQuery(
  request: SearchRequest,
  source: { type: SearchSourceType; tbs?: string; location?: string },
): { query: SourceQuery; warnings: string[] } {
  const warnings: string[] = [];
  const parts = [request.query];
  const include = request.includeDomains ?? [];
  if (include.length > 0) parts.push(group(include.map((d) => `site:${d}`)));
  for (const d of request.excludeDomains ?? []) parts.push(`-site:${d}`);
  const categories = categoriesOf(request);
  if (source.type === 'web' && categories.length > 0) {
    parts.push(group(categories.map((c) => CATEGORY_OPERATORS[c])));
  }
  const tbs = source.tbs ?? request.tbs;
  const time = tbs ? parseTbs(tbs) : { newestFirst: false };
  // The SearchRequest schema refused a tbs that does not parse.
  const { timeRange, newestFirst } =
    typeof time === 'string' ? { timeRange: undefined, newestFirst: false } : time;
  let country = request.country;
  const location = source.location ?? request.location;
  if (location !== undefined) {
    const named = countryOfLocation(location);
    if (named) country = named;
    else
      warnings.push(
        `location "${location}" names no country this service knows; results are not localised for it`,
      );
  }
  return {
    query: {
      source: source.type,
      q: parts.join(' '),
      category: source.type === 'web' ? 'general' : source.type,
      timeRange,
      newestFirst,
      language: country ? languageOfCountry(country) : undefined,
      safesearch: request.safe === undefined ? undefined : request.safe ? 2 : 0,
    },
    warnings,
  };
}

function group(terms: string[]): string {
  return terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`;
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

function onDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** The category a result belongs to, of those asked for (undefined: none of them). */
export function categoryOf(url: URL, asked: readonly SearchCategory[]): SearchCategory | undefined {
  const host = hostOf(url);
  for (const c of asked) {
    if (c === 'github' && onDomain(host, 'github.com')) return c;
    if (c === 'research' && RESEARCH_HOSTS.some((h) => onDomain(host, h))) return c;
    if (c === 'pdf' && url.pathname.toLowerCase().endsWith('.pdf')) return c;
  }
  return undefined;
}

/** Whether a result's URL passes the request's domain filters. */
export function passesDomains(url: URL, request: SearchRequest): boolean {
  const host = hostOf(url);
  const include = request.includeDomains ?? [];
  if (include.length > 0 && !include.some((d) => onDomain(host, d))) return false;
  return !(request.excludeDomains ?? []).some((d) => onDomain(host, d));
}

/** A URL the platform can scrape: absolute http(s). */
export function parseResultUrl(raw: unknown): URL | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 8192) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
