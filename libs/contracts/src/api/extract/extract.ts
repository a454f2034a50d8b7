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

/**
 * POST /v2/extract body (Firecrawl v2 shape). `urls` are page URLs or globs (`https://site/*`,
 * expanded through map); invalid ones are set aside in `invalidURLs` unless `ignoreInvalidURLs` is
 * false. There is no web search here, so `urls` is required (a prompt alone finds no pages).
 */
export const ExtractRequest = publicBody({
  urls: z.array(z.string().max(2048)).max(EXTRACT_MAX_URLS).optional(),
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
  enableWebSearch: notAvailable(
    'enableWebSearch: this service has no web search; list the pages to read in urls (globs such as https://site/* are expanded)',
  ).describe('Refused when true: there is no web search'),
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
    if (!body.urls || body.urls.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['urls'],
        message:
          'urls is required: this service has no web search to find pages from a prompt alone (globs such as https://site/* are expanded)',
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
    refineUrlList(body.urls, body.ignoreInvalidURLs, ctx);
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
