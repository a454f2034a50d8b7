import { selectorProblem } from '@wds/transform';
import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { HttpUrl } from '../common/url';
import { Location } from '../common/location';
import { HttpHeaders } from '../common/http-headers';
import { ScrapeFormat } from './formats';
import { MAX_ACTIONS, PageAction } from './actions';

export const DEFAULT_MAX_AGE_MS = 172_800_000;
/** Under lockdown the cache is the only source, so anything up to two years old is acceptable. */
export const LOCKDOWN_MAX_AGE_MS = 2 * 365 * 24 * 60 * 60 * 1000;
/** Cache ages beyond this (ms, 100 years) mean nothing and would overflow a timestamp. */
export const MAX_CACHE_AGE_MS = 100 * 365 * 24 * 60 * 60 * 1000;
export const SCRAPE_TIMEOUT_MIN_MS = 1000;
export const SCRAPE_TIMEOUT_MAX_MS = 300_000;
export const SCRAPE_TIMEOUT_DEFAULT_MS = 60_000;

export const ProxyMode = z.enum(['basic', 'enhanced', 'auto']);
export type ProxyMode = z.infer<typeof ProxyMode>;

export const PdfParser = z.union([
  z.literal('pdf'),
  z.strictObject({ type: z.literal('pdf'), maxPages: z.int().min(1).max(10000).optional() }),
]);

export const BrowserProfile = z.strictObject({
  name: z.string().min(1).max(128),
  saveChanges: z.boolean().default(true),
});
export type BrowserProfile = z.output<typeof BrowserProfile>;

/** An includeTags/excludeTags entry: refused here, before any fetch, when the transform cannot apply it. */
const CssSelector = z
  .string()
  .min(1)
  .max(1000)
  .superRefine((selector, ctx) => {
    const problem = selectorProblem(selector);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Every scrape option except `url` and `zeroDataRetention`: the crawl `scrapeOptions` and batch fields. */
export const scrapeOptionsShape = {
  formats: z
    .array(ScrapeFormat)
    .max(20)
    .default(() => ['markdown' as const])
    .describe('Output formats: a name such as "markdown", or an object with `type` and options'),
  onlyMainContent: z.boolean().default(true),
  onlyCleanContent: z.boolean().default(false),
  includeTags: z.array(CssSelector).max(100).optional(),
  excludeTags: z.array(CssSelector).max(100).optional(),
  maxAge: z
    .int()
    .min(0)
    .max(MAX_CACHE_AGE_MS)
    .optional()
    .describe(
      `Accept a cached copy younger than this (ms). Default ${DEFAULT_MAX_AGE_MS}; 2 years under lockdown`,
    ),
  minAge: z
    .int()
    .min(1)
    .max(MAX_CACHE_AGE_MS)
    .optional()
    .describe('Cache only: the cached copy must be at least this old (ms)'),
  headers: HttpHeaders.optional().describe('Request headers (RFC 9110 names and values)'),
  waitFor: z.int().min(0).max(60000).default(0),
  mobile: z.boolean().default(false),
  skipTlsVerification: z.boolean().default(true),
  timeout: z.int().min(SCRAPE_TIMEOUT_MIN_MS).max(SCRAPE_TIMEOUT_MAX_MS).default(SCRAPE_TIMEOUT_DEFAULT_MS),
  parsers: z
    .array(PdfParser)
    .max(1)
    .default(() => ['pdf' as const])
    .describe('With pdf: PDFs become markdown (1 credit/page); empty: the PDF is returned base64'),
  actions: z.array(PageAction).max(MAX_ACTIONS).optional(),
  location: Location.default(() => ({ country: 'US' })),
  removeBase64Images: z.boolean().default(true),
  blockAds: z.boolean().default(true),
  // firecrawl-py sends fastMode: false with every scrape; there is no fast mode to turn on.
  fastMode: z
    .literal(false)
    .optional()
    .describe('Accepted as false only (the Python SDK sends it); no fast mode exists'),
  proxy: ProxyMode.default('auto'),
  storeInCache: z.boolean().default(true),
  lockdown: z.boolean().default(false),
  profile: BrowserProfile.optional(),
};

interface ScrapeRuleFields {
  maxAge?: number | undefined;
  lockdown: boolean;
  storeInCache: boolean;
  actions?: readonly unknown[] | undefined;
  headers?: Record<string, string> | undefined;
}

/** Rules of the spec that tie one field to others, applied once so every service sees the same values. */
export function applyScrapeRules<T extends ScrapeRuleFields>(o: T): Omit<T, 'maxAge'> & { maxAge: number } {
  const sensitive = (o.actions?.length ?? 0) > 0 || Object.keys(o.headers ?? {}).length > 0;
  return {
    ...o,
    maxAge: o.maxAge ?? (o.lockdown ? LOCKDOWN_MAX_AGE_MS : DEFAULT_MAX_AGE_MS),
    storeInCache: sensitive ? false : o.storeInCache,
  };
}

/** Scrape options without `url` (crawl `scrapeOptions`). */
export const ScrapeOptions = publicBody(scrapeOptionsShape).transform(applyScrapeRules);
export type ScrapeOptions = z.output<typeof ScrapeOptions>;
export type ScrapeOptionsInput = z.input<typeof ScrapeOptions>;

/** POST /v2/scrape body. */
export const ScrapeRequest = publicBody({
  url: HttpUrl,
  ...scrapeOptionsShape,
  zeroDataRetention: z.boolean().default(false),
}).transform(applyScrapeRules);
export type ScrapeRequest = z.output<typeof ScrapeRequest>;
export type ScrapeRequestInput = z.input<typeof ScrapeRequest>;
