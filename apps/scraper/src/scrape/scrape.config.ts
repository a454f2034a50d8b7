import { envBool, envInt } from '@wds/config';
import { LlmEnvShape } from '@wds/llm';
import { parseProxyList } from '@wds/outbound';
import { z } from 'zod';

function proxyList() {
  return z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return parseProxyList(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });
}

/**
 * Environment of the scrape feature; the app's config schema extends CommonEnv with this shape
 * (`CommonEnv.extend(scrapeEnvShape)`).
 */
export const scrapeEnvShape = {
  /** The LLM provider of the LLM formats (libs/llm README); unset = those formats answer 400. */
  ...LlmEnvShape,
  /**
   * `branding`: let the LLM name the colour roles (primary, secondary, accent, link, success,
   * warning, error) among the colours measured on the page. Off by default: the measured profile
   * needs no model, and the pass adds a model call (seconds on a CPU model) to every fresh branding
   * page. Ignored without an LLM provider.
   */
  WDS_BRANDING_LLM: envBool().default(false),
  /** Comma list of http(s)://[user:pass@]host:port proxies for `proxy: basic` (rotated); empty = direct. */
  WDS_PROXY_BASIC: proxyList(),
  /** Same for `proxy: enhanced` and the `auto` retry after 401/403/429; empty = direct, no retry. */
  WDS_PROXY_ENHANCED: proxyList(),
  /** Largest page body accepted (decompressed bytes). */
  WDS_SCRAPE_MAX_BYTES: envInt({ min: 1024 }).default(20 * 1024 * 1024),
  /**
   * Worker threads for large pages (the HTML transform to markdown and the other formats, the
   * `attributes` parse) off the event loop (~17 MB each, idle); 0 = every page on the event loop.
   * Large pages are the exception, and replicas scale out: one is enough unless a replica has cores
   * to spare for them.
   */
  WDS_SCRAPE_TRANSFORM_THREADS: envInt({ min: 0, max: 64 }).default(1),
  /** Pages up to this size (KiB of HTML) are worked on the event loop, larger ones in a worker thread. */
  WDS_SCRAPE_TRANSFORM_INLINE_KB: envInt({ min: 0 }).default(256),
  /** How long scrape jobs and their documents are kept for GET /v2/scrape/{id}. */
  WDS_SCRAPE_RETENTION_HOURS: envInt({ min: 1 }).default(24),
  /** How long cached pages are kept; lockdown's default maxAge is 2 years, hence the default. */
  WDS_SCRAPE_CACHE_RETENTION_DAYS: envInt({ min: 1 }).default(730),
  /** Render with the browser-pool service (screenshots, actions, script-rendered pages); false = fetch only. */
  WDS_BROWSER_ENABLED: envBool().default(true),
  /** Render requests sent when browser-pool replicas answer "at capacity", before answering 429. */
  WDS_BROWSER_RENDER_ATTEMPTS: envInt({ min: 1, max: 10 }).default(3),
  /** A slow engine gets this long before the next engine of the waterfall starts in parallel. */
  WDS_ENGINE_WATERFALL_MS: envInt({ min: 0 }).default(8000),
  /** Base URL clients reach the gateway at: screenshot and PDF URLs point there. */
  WDS_PUBLIC_BASE_URL: z.url().default('http://localhost:3002'),
  /**
   * Key of artifact capability URLs (screenshot/PDF/media URLs that work without the API key until
   * they expire); the gateway must have the same. Unset: artifact URLs need the API key. Rotating it
   * revokes every URL handed out.
   */
  WDS_ARTIFACT_URL_SECRET: z.string().min(32).max(1000).optional(),
  /** How long an artifact capability URL works (seconds). */
  WDS_ARTIFACT_URL_TTL_SECONDS: envInt({ min: 60, max: 30 * 24 * 3600 }).default(24 * 3600),
  /** Largest media file the `audio`/`video` formats download (bytes). */
  WDS_MEDIA_MAX_BYTES: envInt({ min: 1024 }).default(100 * 1024 * 1024),
  /** Upper bound of one ffmpeg/ffprobe run for the media formats (ms), within the scrape's timeout. */
  WDS_MEDIA_PROCESS_MS: envInt({ min: 1000 }).default(120_000),
  /** Lifetime of stored audio/video artifacts when the scraper creates the artifact bucket. */
  WDS_ARTIFACT_TTL_HOURS: envInt({ min: 1 }).default(24),
};

export const ScrapeEnv = z.object(scrapeEnvShape);
export type ScrapeEnv = z.output<typeof ScrapeEnv> & { WDS_PRIVATE_NETWORK_ALLOWLIST: string[] };
