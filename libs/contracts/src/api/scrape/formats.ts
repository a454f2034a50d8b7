import { z } from 'zod';

/** Formats that may be given as a bare string (the others need options). */
const NAMED_FORMATS = [
  'markdown',
  'summary',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'json',
  'changeTracking',
  'branding',
  'audio',
  'video',
] as const;

/** Every output format kind of the scrape request: the named ones, then those that need options. */
export const FORMAT_TYPES = [...NAMED_FORMATS, 'question', 'highlights', 'attributes'] as const;
export type FormatType = (typeof FORMAT_TYPES)[number];

/** A format given as a bare string. */
export const FormatName = z.enum(NAMED_FORMATS);
export type FormatName = z.infer<typeof FormatName>;

export const Viewport = z.strictObject({
  width: z.int().min(1).max(7680),
  height: z.int().min(1).max(4320),
});

/** A JSON Schema object supplied by the caller (not validated beyond being an object). */
/**
 * Longest JSON schema accepted (serialised): compiling one holds the service's event loop (~0.1 s for
 * 40 KB, 2.9 s for 900 KB, which a request body could carry), and real schemas are a few KB.
 */
export const JSON_SCHEMA_MAX_CHARS = 64 * 1024;

export const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((schema) => JSON.stringify(schema).length <= JSON_SCHEMA_MAX_CHARS, {
    message: `a JSON schema is at most ${JSON_SCHEMA_MAX_CHARS / 1024} KiB (serialised)`,
  })
  .describe('A JSON Schema (at most 64 KiB serialised)');

export const PlainFormat = z.strictObject({
  type: z.enum(['markdown', 'summary', 'html', 'rawHtml', 'links', 'images', 'branding', 'audio', 'video']),
});

export const ScreenshotFormat = z.strictObject({
  type: z.literal('screenshot'),
  fullPage: z.boolean().optional(),
  quality: z.int().min(1).max(100).optional(),
  viewport: Viewport.optional(),
});

export const JsonFormat = z.strictObject({
  type: z.literal('json'),
  schema: JsonSchemaObject.optional(),
  prompt: z.string().min(1).max(10000).optional(),
});

export const ChangeTrackingFormat = z.strictObject({
  type: z.literal('changeTracking'),
  modes: z.array(z.enum(['git-diff', 'json'])).optional(),
  schema: JsonSchemaObject.optional(),
  prompt: z.string().min(1).max(10000).optional(),
  tag: z.string().min(1).max(128).optional().describe('Separates change-tracking histories of the same URL'),
});

export const QuestionFormat = z.strictObject({
  type: z.literal('question'),
  question: z.string().min(1).max(10000),
});

export const HighlightsFormat = z.strictObject({
  type: z.literal('highlights'),
  query: z.string().min(1).max(10000),
});

export const AttributesFormat = z.strictObject({
  type: z.literal('attributes'),
  selectors: z
    .array(z.strictObject({ selector: z.string().min(1), attribute: z.string().min(1) }))
    .min(1)
    .max(100),
});

export const FormatObject = z.discriminatedUnion(
  'type',
  [
    PlainFormat,
    ScreenshotFormat,
    JsonFormat,
    ChangeTrackingFormat,
    QuestionFormat,
    HighlightsFormat,
    AttributesFormat,
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `Invalid format type: expected one of ${FORMAT_TYPES.join(', ')}`
        : undefined,
  },
);
export type FormatObject = z.output<typeof FormatObject>;

/** One element of `formats`: a bare name or an object with `type` and options. */
export const ScrapeFormat = z.union([FormatName, FormatObject]);
export type ScrapeFormat = z.output<typeof ScrapeFormat>;
export type ScrapeFormatInput = z.input<typeof ScrapeFormat>;

/** The object form of every requested format, so consumers need not handle bare strings. */
export function normalizeFormats(formats: readonly ScrapeFormat[]): FormatObject[] {
  return formats.map((f) => (typeof f === 'string' ? ({ type: f } as FormatObject) : f));
}

/** The options of a requested format kind, or undefined when it was not requested. */
export function findFormat<T extends FormatType>(
  formats: readonly ScrapeFormat[],
  type: T,
): Extract<FormatObject, { type: T }> | undefined {
  return normalizeFormats(formats).find((f): f is Extract<FormatObject, { type: T }> => f.type === type);
}
