import { z } from 'zod';
import { publicBody } from '../common/public-body';

/** POST /v2/support/docs-search body. */
export const DocsSearchRequest = publicBody({ question: z.string().trim().min(1).max(10000) });
export type DocsSearchRequest = z.output<typeof DocsSearchRequest>;

export const DocsSearchEvidence = z.object({ pathOrUrl: z.string(), reason: z.string() });
export type DocsSearchEvidence = z.output<typeof DocsSearchEvidence>;

export const DocsSearchResult = z.object({
  requestId: z.string(),
  answer: z.string(),
  evidence: z.array(DocsSearchEvidence),
  usage: z.object({ inputTokens: z.int().min(0), outputTokens: z.int().min(0), totalTokens: z.int().min(0) }),
  durationMs: z.int().min(0),
});
export type DocsSearchResult = z.output<typeof DocsSearchResult>;

/** HTTP answer: the result plus `success`, like every other answer. */
export const DocsSearchResponse = DocsSearchResult.extend({ success: z.literal(true) });
export type DocsSearchResponse = z.output<typeof DocsSearchResponse>;
