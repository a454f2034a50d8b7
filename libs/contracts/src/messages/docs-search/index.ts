import { z } from 'zod';
import { DOCS_SEARCH_QUESTION_MAX, DocsSearchResult } from '../../api/docs-search/docs-search';
import { defineRpc } from '../define';

/*
 * The docs-search service's messages. NEVER rename a shipped subject: bump the version.
 */

export const DocsAskRequest = z.object({
  teamId: z.string().min(1),
  /** Public lookup prefix of the API key that asked (token usage per key); null when none. */
  apiKey: z.string().min(1).max(64).nullable().default(null),
  /** The gateway's request id, echoed as `requestId`. */
  requestId: z.string().min(1),
  question: z.string().min(1).max(DOCS_SEARCH_QUESTION_MAX),
  /** Epoch ms by which the gateway stops waiting; the service answers (extractively if need be) before it. */
  deadline: z.int().min(0),
});
export type DocsAskRequest = z.output<typeof DocsAskRequest>;

export const DOCS_SEARCH_RPC = {
  ask: defineRpc('wds.docs-search.v1.ask', 'docs-search', DocsAskRequest, DocsSearchResult),
} as const;
