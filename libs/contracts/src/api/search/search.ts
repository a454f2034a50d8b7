import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { ScrapeOptions } from '../scrape/scrape-request';

export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 100;
export const SEARCH_QUERY_MAX = 500;
export const SEARCH_TIMEOUT_DEFAULT_MS = 60_000;
export const SEARCH_TIMEOUT_MAX_MS = 300_000;

export const SEARCH_SOURCES = ['web', 'news', 'images'] as const;
export type SearchSourceType = (typeof SEARCH_SOURCES)[number];
export const SEARCH_CATEGORIES = ['github', 'research', 'pdf'] as const;
export type SearchCategory = (typeof SEARCH_CATEGORIES)[number];

/** The time ranges a search engine behind SearXNG understands. */
export type SearchTimeRange = 'day' | 'week' | 'month' | 'year';

const HOURS: Record<string, number> = { h: 1, d: 24, w: 24 * 7, m: 24 * 30, y: 24 * 365 };
const RANGE_HOURS: readonly [SearchTimeRange, number][] = [
  ['day', 24],
  ['week', 24 * 7],
  ['month', 24 * 30],
  ['year', 24 * 365],
];

/**
 * Google's `tbs` as Firecrawl passes it on: `qdr:<unit><n>` (past hour, day, week, month, year,
 * n of them), optionally with `sbd:1` (newest first). The engine behind SearXNG takes a range of a
 * day, a week, a month or a year, so a `qdr` becomes the smallest of those that covers it (`qdr:h`
 * → day, `qdr:m6` → year). Custom date ranges (`cdr:1,cd_min:…`) have no equivalent: an error.
 */
export function parseTbs(tbs: string): { timeRange?: SearchTimeRange; newestFirst: boolean } | string {
  let timeRange: SearchTimeRange | undefined;
  let newestFirst = false;
  for (const part of tbs.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const qdr = /^qdr:([hdwmy])(\d{0,4})$/.exec(part);
    if (qdr) {
      const hours = HOURS[qdr[1]] * Math.max(1, Number(qdr[2] || 1));
      timeRange = (RANGE_HOURS.find(([, h]) => h >= hours) ?? RANGE_HOURS[RANGE_HOURS.length - 1])[0];
      continue;
    }
    if (part === 'sbd:1' || part === 'sbd:0') {
      newestFirst = part === 'sbd:1';
      continue;
    }
    if (/^(cdr|cd_min|cd_max):/.test(part)) {
      return 'tbs: custom date ranges (cdr, cd_min, cd_max) are not supported; use qdr:h, qdr:d, qdr:w, qdr:m or qdr:y (optionally with a count, e.g. qdr:m6)';
    }
    return `tbs: "${part}" is not understood; use qdr:h, qdr:d, qdr:w, qdr:m or qdr:y (optionally with a count, e.g. qdr:m6) and sbd:1`;
  }
  return { timeRange, newestFirst };
}

const Tbs = z
  .string()
  .max(200)
  .superRefine((v, ctx) => {
    const parsed = parseTbs(v);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
  })
  .describe('Time filter: qdr:h|d|w|m|y (with an optional count, e.g. qdr:m6) and sbd:1 (newest first)');

const SearchLocation = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('Where the results should be relevant: a country name or code');

const SourceObject = z.strictObject({
  type: z.enum(SEARCH_SOURCES),
  tbs: Tbs.optional(),
  location: SearchLocation.optional(),
});

/** A hostname (a domain, optionally with subdomains): `example.com`, `docs.example.com`. */
const DomainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .transform((v) =>
    v
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/.*$/, ''),
  )
  .pipe(
    z
      .string()
      .regex(/^(?=.{1,253}$)([a-z0-9-_]{1,63}\.)*[a-z0-9-_]{1,63}$/, 'Expected a domain such as example.com'),
  );

const notAvailable = (what: string) =>
  z
    .unknown()
    .optional()
    .refine((v) => v === undefined || v === null || v === false, { message: what });

/** POST /v2/search body (Firecrawl v2). */
export const SearchRequest = publicBody({
  query: z.string().trim().min(1, 'query must not be empty').max(SEARCH_QUERY_MAX),
  limit: z.int().min(1).max(SEARCH_LIMIT_MAX).default(SEARCH_LIMIT_DEFAULT),
  sources: z
    .array(z.union([z.enum(SEARCH_SOURCES), SourceObject]))
    .min(1)
    .max(3)
    .default(() => ['web' as const])
    .describe('What to search: web pages, news, images; each may carry its own tbs and location'),
  categories: z
    .array(z.union([z.enum(SEARCH_CATEGORIES), z.strictObject({ type: z.enum(SEARCH_CATEGORIES) })]))
    .max(3)
    .optional()
    .describe('Only web results of these kinds: github (github.com), research (papers), pdf (PDF files)'),
  includeDomains: z
    .array(DomainName)
    .max(50)
    .optional()
    .describe('Only results on these domains (and their subdomains)'),
  excludeDomains: z
    .array(DomainName)
    .max(50)
    .optional()
    .describe('No results on these domains (or their subdomains)'),
  tbs: Tbs.optional(),
  location: SearchLocation.optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Expected an ISO 3166-1 alpha-2 country code')
    .toUpperCase()
    .optional()
    .describe('Country code (ISO 3166-1 alpha-2) the results should suit'),
  safe: z.boolean().optional().describe('Strict safe search'),
  timeout: z
    .int()
    .min(1000)
    .max(SEARCH_TIMEOUT_MAX_MS)
    .default(SEARCH_TIMEOUT_DEFAULT_MS)
    .describe(
      'ms for the whole search, scraping included; what is not done by then is left out with a warning',
    ),
  ignoreInvalidURLs: z
    .boolean()
    .default(false)
    .describe('Leave out results whose URL could not be scraped (not http(s))'),
  highlights: z
    .boolean()
    .optional()
    .describe("Accepted; results always carry the engine's snippet as description"),
  enterprise: z
    .array(z.enum(['anon', 'zdr', 'default']))
    .max(3)
    .optional()
    .describe('zdr: keep nothing of the query or its pages (zero data retention); anon is accepted'),
  scrapeOptions: ScrapeOptions.optional().describe(
    'Scrape each result with these options (each page billed as a scrape)',
  ),
  threatProtection: notAvailable('threatProtection is not available on this service'),
  domainTools: notAvailable('domainTools is not available on this service'),
  toolDetail: z.enum(['compact', 'summary', 'full']).optional().describe('Accepted; no tools are discovered'),
});
export type SearchRequest = z.output<typeof SearchRequest>;
export type SearchRequestInput = z.input<typeof SearchRequest>;

export const SearchResultWeb = z.looseObject({
  url: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  position: z.int().optional(),
  category: z.enum(SEARCH_CATEGORIES).optional(),
});
export const SearchResultNews = z.looseObject({
  url: z.string(),
  title: z.string().optional(),
  snippet: z.string().optional(),
  date: z.string().optional(),
  imageUrl: z.string().optional(),
  position: z.int().optional(),
});
export const SearchResultImage = z.looseObject({
  url: z.string(),
  title: z.string().optional(),
  imageUrl: z.string(),
  imageWidth: z.int().optional(),
  imageHeight: z.int().optional(),
  position: z.int().optional(),
});

export const SearchResponse = z.object({
  success: z.literal(true),
  data: z.object({
    web: z.array(SearchResultWeb).optional(),
    news: z.array(SearchResultNews).optional(),
    images: z.array(SearchResultImage).optional(),
  }),
  warning: z.string().nullable(),
  id: z.string(),
  creditsUsed: z.int(),
});
export type SearchResponse = z.output<typeof SearchResponse>;
