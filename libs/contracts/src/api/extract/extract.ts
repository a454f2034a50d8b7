import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { refineUrlList, splitUrlList } from '../common/url';
import { JsonSchemaObject } from '../scrape/formats';
import { ScrapeOptions } from '../scrape/scrape-request';
import { ExtractWebhookOption } from '../webhooks/webhook-config';

/** At most this many URLs (or URL globs) per extract request (Firecrawl's limit). */
export const EXTRACT_MAX_URLS = 10;
/** Pages an extract job reads at most, globs expanded (`limit`): each page is one model call. */
export const EXTRACT_PAGE_LIMIT_MAX = 100;
export const EXTRACT_PAGE_LIMIT_DEFAULT = 20;
/** The prompt of an extract or agent job (api-v2: prompts are at most 10,000 characters). */
export const JOB_PROMPT_MAX = 10_000;

/** A URL glob of an extract request: `*` stands for any run of characters (`https://site/blog/*`). */
export function isUrlGlob(url: string): boolean {
  return url.includes('*');
}

/** Fields sent by the SDKs for features this service does not have: refused with a clear reason. */
const notAvailable = (what: string) =>
  z
    .unknown()
    .optional()
    .refine((v) => v === undefined || v === null || v === false, { message: what });

/** Pages a web search adds to an extract job at most (each page is one model call). */
export const EXTRACT_SEARCH_PAGES_MAX = 5;

/**
 * POST /v2/extract body (Firecrawl v2 shape). `urls` are page URLs or globs (`https://site/*`,
 * expanded through map); invalid ones are set aside in `invalidURLs` unless `ignoreInvalidURLs` is
 * false. Without `urls`, or with `enableWebSearch`, the pages come from (or are added by) a web
 * search for the prompt through the operator's SearXNG (POST /v2/search).
 */
export const ExtractRequest = publicBody({
  urls: z
    .array(z.string().max(2048))
    .max(EXTRACT_MAX_URLS)
    .optional()
    .describe('Pages or URL globs to read; without them a web search for the prompt finds the pages'),
  prompt: z.string().min(1).max(JOB_PROMPT_MAX).optional(),
  systemPrompt: z.string().max(JOB_PROMPT_MAX).optional(),
  schema: JsonSchemaObject.optional(),
  limit: z
    .int()
    .min(1)
    .max(EXTRACT_PAGE_LIMIT_MAX)
    .default(EXTRACT_PAGE_LIMIT_DEFAULT)
    .describe('Most pages read, URL globs expanded'),
  ignoreSitemap: z.boolean().default(false).describe('Globs: expand from links only, not the sitemap'),
  includeSubdomains: z.boolean().default(true).describe('Globs: keep matching URLs of subdomains'),
  allowExternalLinks: z
    .boolean()
    .default(false)
    .describe('Accepted; globs only ever expand to URLs that match them'),
  enableWebSearch: z
    .boolean()
    .default(false)
    .describe(
      `Also read the pages a web search for the prompt finds (at most ${EXTRACT_SEARCH_PAGES_MAX}, within limit); without urls the search is always made. Needs the operator's SearXNG (WDS_SEARXNG_URL)`,
    ),
  showSources: z.boolean().default(false).describe('Add `sources`: the page URLs behind each field'),
  ignoreInvalidURLs: z.boolean().default(true),
  scrapeOptions: ScrapeOptions.optional().describe('How pages are scraped (formats are set by extract)'),
  timeout: z.int().min(1000).max(300_000).optional().describe('Scrape timeout of each page (ms)'),
  urlTrace: z.boolean().optional().describe('Accepted; the trace is always empty'),
  agent: notAvailable(
    'agent: extraction driven by the browser agent is not available here; use POST /v2/agent',
  ).describe('Refused: use POST /v2/agent'),
  webhook: ExtractWebhookOption.optional().describe(
    'Events extract.started, extract.completed (with the answer) and extract.failed; a bare URL is short for {url}',
  ),
  threatProtection: notAvailable('threatProtection is not available on this service').describe('Refused'),
})
  .superRefine((body, ctx) => {
    const urls = body.urls ?? [];
    if (urls.length === 0 && !body.prompt) {
      ctx.addIssue({
        code: 'custom',
        path: ['urls'],
        message:
          'Give urls (pages or globs such as https://site/*), a prompt (the pages are then found by a web search for it), or both',
      });
      return;
    }
    if (body.enableWebSearch && !body.prompt) {
      ctx.addIssue({
        code: 'custom',
        path: ['prompt'],
        message: 'enableWebSearch needs a prompt: the web search is for what the prompt asks',
      });
      return;
    }
    if (!body.prompt && !body.schema) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'Give a prompt, a schema, or both' });
    }
    if ((body.prompt?.length ?? 0) + (body.systemPrompt?.length ?? 0) > JOB_PROMPT_MAX) {
      ctx.addIssue({
        code: 'custom',
        path: ['systemPrompt'],
        message: `prompt and systemPrompt together must be at most ${JOB_PROMPT_MAX} characters`,
      });
    }
    if (urls.length > 0) refineUrlList(urls, body.ignoreInvalidURLs, ctx);
  })
  .transform((body) => ({ ...body, ...splitUrlList(body.urls ?? []) }));
export type ExtractRequest = z.output<typeof ExtractRequest>;
export type ExtractRequestInput = z.input<typeof ExtractRequest>;

export const ExtractCreateResponse = z.object({
  success: z.literal(true),
  id: z.uuid(),
  urlTrace: z.array(z.unknown()),
  invalidURLs: z.array(z.string()).optional(),
});
export type ExtractCreateResponse = z.output<typeof ExtractCreateResponse>;

export const ExtractStatus = z.enum(['processing', 'completed', 'failed', 'cancelled']);
export type ExtractStatus = z.output<typeof ExtractStatus>;

/**
 * GET /v2/extract/{id}: `data` is `[]` until the job completed, then the object merged from every
 * page; `success` is false when the job failed. Agent jobs are read here too (api-v2 activity table).
 */
export const ExtractStatusResponse = z.object({
  success: z.boolean(),
  /** The job's id (firecrawl-py's `extract()` waiter hands the last status back as its result). */
  id: z.uuid(),
  status: ExtractStatus,
  data: z.unknown(),
  error: z.string().optional(),
  warning: z.string().optional(),
  expiresAt: z.string(),
  /** Page URLs behind each field path of `data` (`showSources`). */
  sources: z.record(z.string(), z.array(z.string())).optional(),
  tokensUsed: z.int().min(0),
  creditsUsed: z.int().min(0),
});
export type ExtractStatusResponse = z.output<typeof ExtractStatusResponse>;
