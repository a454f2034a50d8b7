import { z } from 'zod';

export const DocumentMetadata = z
  .object({
    title: z.string().optional(),
    description: z.string().optional(),
    language: z.string().optional(),
    sourceURL: z.string().optional().describe('URL requested for the scrape'),
    url: z.string().optional().describe('Final URL after redirects'),
    keywords: z.string().optional(),
    ogLocaleAlternate: z.array(z.string()).optional(),
    statusCode: z.int().optional(),
    contentType: z.string().optional(),
    error: z.string().optional(),
    concurrencyLimited: z.boolean().optional(),
    concurrencyQueueDurationMs: z.int().optional(),
    scrapeId: z.string().optional().describe('Scrape job id, used by the interact endpoints'),
    cacheState: z.enum(['hit', 'miss']).optional(),
    cachedAt: z.string().optional(),
    creditsUsed: z.number().optional(),
    proxyUsed: z.enum(['basic', 'enhanced']).optional(),
    numPages: z.int().optional(),
    timezone: z.string().optional(),
  })
  // Page <meta> tags of any name; a repeated tag yields a list.
  .catchall(z.union([z.string(), z.array(z.string())]));
export type DocumentMetadata = z.output<typeof DocumentMetadata>;

export const ChangeTracking = z
  .object({
    previousScrapeAt: z
      .string()
      .nullable()
      .optional()
      .describe(
        "When the team's previous snapshot of this URL (and tag) was fetched; null when there is none",
      ),
    changeStatus: z
      .enum(['new', 'same', 'changed', 'removed'])
      .optional()
      .describe(
        'new: no previous snapshot; removed: the page answered 404/410 (its last live snapshot is kept)',
      ),
    visibility: z
      .enum(['visible', 'hidden'])
      .optional()
      .describe(
        "hidden: a crawl page that no link or sitemap of the crawl led to, re-checked because the team's change-tracking history (same tag) has it; visible otherwise",
      ),
    diff: z
      .string()
      .optional()
      .describe('git-diff mode, when changed: unified diff from the previous markdown'),
    json: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'git-diff mode, when changed: the same diff parsed, {files: [{from, to, chunks: [{content, changes}]}]}',
      ),
  })
  .describe(
    "Comparison with the team's previous snapshot of the page (per URL and tag); snapshots are kept until deleted, never under zero data retention",
  );
export type ChangeTracking = z.output<typeof ChangeTracking>;

const looseRecord = z.record(z.string(), z.unknown());
const button = z.object({
  background: z.string().optional(),
  textColor: z.string().optional(),
  borderColor: z.string().optional(),
  borderRadius: z.string().optional(),
});

export const Branding = z.object({
  colorScheme: z.enum(['light', 'dark']).optional(),
  brandName: z.string().optional(),
  logo: z.string().optional(),
  colors: z
    .object({
      primary: z.string().optional(),
      secondary: z.string().optional(),
      accent: z.string().optional(),
      background: z.string().optional(),
      textPrimary: z.string().optional(),
      textSecondary: z.string().optional(),
      link: z.string().optional(),
      success: z.string().optional(),
      warning: z.string().optional(),
      error: z.string().optional(),
    })
    .optional(),
  fonts: z.array(z.object({ family: z.string() })).optional(),
  typography: z
    .object({
      fontFamilies: z
        .object({
          primary: z.string().optional(),
          heading: z.string().optional(),
          code: z.string().optional(),
        })
        .optional(),
      fontSizes: z
        .object({
          h1: z.string().optional(),
          h2: z.string().optional(),
          h3: z.string().optional(),
          body: z.string().optional(),
        })
        .optional(),
      fontWeights: z
        .object({
          light: z.int().optional(),
          regular: z.int().optional(),
          medium: z.int().optional(),
          bold: z.int().optional(),
        })
        .optional(),
      lineHeights: z.object({ heading: z.number().optional(), body: z.number().optional() }).optional(),
    })
    .optional(),
  spacing: z
    .object({
      baseUnit: z.int().optional(),
      borderRadius: z.string().optional(),
      padding: looseRecord.optional(),
      margins: looseRecord.optional(),
    })
    .optional(),
  components: z
    .object({
      buttonPrimary: button.optional(),
      buttonSecondary: button.optional(),
      input: looseRecord.optional(),
    })
    .optional(),
  icons: looseRecord.optional(),
  images: z
    .object({
      logo: z.string().nullable().optional(),
      favicon: z.string().nullable().optional(),
      ogImage: z.string().nullable().optional(),
    })
    .optional(),
  animations: looseRecord.optional(),
  layout: looseRecord.optional(),
  personality: looseRecord.optional(),
});
export type Branding = z.output<typeof Branding>;

export const ActionResults = z.object({
  screenshots: z.array(z.string()).optional(),
  scrapes: z.array(z.object({ url: z.string(), html: z.string() })).optional(),
  javascriptReturns: z.array(z.object({ type: z.string(), value: z.unknown() })).optional(),
  pdfs: z.array(z.string()).optional(),
});
export type ActionResults = z.output<typeof ActionResults>;

/** A scraped page: the `data` of a scrape answer, an element of crawl/batch `data`, a webhook page. */
export const Document = z.object({
  markdown: z.string().optional(),
  summary: z.string().optional(),
  html: z.string().optional(),
  rawHtml: z.string().optional(),
  screenshot: z.string().optional(),
  audio: z.string().optional(),
  video: z.string().optional(),
  answer: z.string().optional().describe('Answer to the `question` format'),
  highlights: z.string().optional(),
  links: z.array(z.string()).optional(),
  images: z.array(z.string()).optional(),
  json: z.unknown().optional(),
  attributes: z
    .array(z.object({ selector: z.string(), attribute: z.string(), values: z.array(z.string()) }))
    .optional(),
  actions: ActionResults.optional(),
  metadata: DocumentMetadata.optional(),
  warning: z.string().optional(),
  changeTracking: ChangeTracking.optional(),
  branding: Branding.optional(),
});
export type Document = z.output<typeof Document>;
