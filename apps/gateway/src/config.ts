import { CommonEnv, envInt } from '@wds/config';
import { LlmEnvShape } from '@wds/llm';
import { z } from 'zod';

export const GatewayConfig = CommonEnv.extend({
  /** The LLM provider for crawl options from a prompt (libs/llm README). */
  ...LlmEnvShape,
  PORT: envInt({ min: 0, max: 65535 }).default(3002),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Enables the admin API; unset = every /admin path answers 404. */
  WDS_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  WDS_BOOTSTRAP_API_KEY: z
    .string()
    .min(8)
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional(),
  WDS_BOOTSTRAP_CREDITS: envInt({ min: 0 }).default(100000),
  WDS_BOOTSTRAP_WEBHOOK_SECRET: z.string().min(1).max(1000).optional(),
  /** Key of artifact capability URLs (the scraper's WDS_ARTIFACT_URL_SECRET); unset: only the API key opens artifacts. */
  WDS_ARTIFACT_URL_SECRET: z.string().min(32).max(1000).optional(),
  /** Base URL clients reach the gateway at, for absolute URLs in answers (OpenAPI servers, `next` links). */
  WDS_PUBLIC_BASE_URL: z.url().optional(),
  /**
   * CSP `frame-ancestors` of the live-view pages (liveViewUrl): who may show them in an iframe.
   * `*` (any site: the URL's token is the credential) or a space-separated list of origins.
   */
  WDS_LIVE_VIEW_FRAME_ANCESTORS: z
    .string()
    .regex(
      /^(\*|'none'|'self'|(https?:\/\/[\w.*:-]+)( (https?:\/\/[\w.*:-]+|'self'))*)$/,
      "'*', 'none', 'self' or space-separated http(s) origins",
    )
    .default('*'),
  /** How long a positive API key lookup is reused; revocations clear it at once anyway. */
  WDS_AUTH_CACHE_TTL_MS: envInt({ min: 0, max: 600_000 }).default(30_000),
  /** Memory for hot copies of scraper cache entries (MB of document JSON); 0 = every scrape asks the scraper. */
  WDS_GATEWAY_HOT_CACHE_MB: envInt({ min: 0, max: 65_536 }).default(64),
  /** Docs-search questions a team may ask per minute (each may run the language model for seconds). */
  WDS_DOCS_SEARCH_RATE_PER_MINUTE: envInt({ min: 1, max: 100_000 }).default(20),
  /** How long the gateway waits for a docs-search answer before answering 504. */
  WDS_DOCS_SEARCH_TIMEOUT_MS: envInt({ min: 1000, max: 600_000 }).default(65_000),
  /**
   * Base URL of the SearXNG instance POST /v2/search asks (its JSON API, `search.formats` must list
   * `json`); unset: web search answers 501.
   */
  WDS_SEARXNG_URL: z
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
    .optional(),
  /** SearXNG engines to ask (comma-separated names, e.g. `duckduckgo,brave`); unset: the instance's defaults. */
  WDS_SEARXNG_ENGINES: z
    .string()
    .regex(/^[A-Za-z0-9 _.-]+(,[A-Za-z0-9 _.-]+)*$/, 'comma-separated engine names')
    .optional(),
  /** Results of one search scraped at once (scrapeOptions), at most the team's concurrency. */
  WDS_SEARCH_SCRAPE_CONCURRENCY: envInt({ min: 1, max: 64 }).default(4),
});
export type GatewayConfig = z.output<typeof GatewayConfig>;
