import { z } from 'zod';
import { publicBody } from '../common/public-body';

/** Longest question POST /v2/support/docs-search takes (characters, after trimming). */
export const DOCS_SEARCH_QUESTION_MAX = 2000;

/** POST /v2/support/docs-search body. */
export const DocsSearchRequest = publicBody({
  question: z
    .string()
    .trim()
    .min(1)
    .max(DOCS_SEARCH_QUESTION_MAX)
    .describe('A question about this platform (1–2,000 characters), answered from its public reference'),
});
export type DocsSearchRequest = z.output<typeof DocsSearchRequest>;

export const DocsSearchEvidence = z.object({
  pathOrUrl: z
    .string()
    .describe(
      'Where the cited passage is: a file of the reference with its heading anchor or line range ' +
        '(`docs/webhooks.md#retries`, `README.md#L40-L72`), or an OpenAPI pointer (`openapi#/paths/~1v2~1crawl/post`)',
    ),
  reason: z.string().describe('One line on what the passage contributes to the answer'),
});
export type DocsSearchEvidence = z.output<typeof DocsSearchEvidence>;

export const DocsSearchResult = z.object({
  requestId: z.string(),
  answer: z.string(),
  evidence: z.array(DocsSearchEvidence),
  usage: z.object({ inputTokens: z.int().min(0), outputTokens: z.int().min(0), totalTokens: z.int().min(0) }),
  durationMs: z.int().min(0),
  /** Set when the answer was not written by the model (model disabled, failing or too slow): best passages quoted. */
  warning: z.string().optional(),
});
export type DocsSearchResult = z.output<typeof DocsSearchResult>;

/** HTTP answer: the result plus `success`, like every other answer. */
export const DocsSearchResponse = DocsSearchResult.extend({ success: z.literal(true) });
export type DocsSearchResponse = z.output<typeof DocsSearchResponse>;
