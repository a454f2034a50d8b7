import type { LlmPort, LlmRequest, StructuredRequest } from './types';

/**
 * The port with every call made for `tenant` (a team id; see LlmRequest.tenant), for code that is
 * handed a port for one team's work and makes calls of its own (the scrape formats).
 */
export function forTenant(llm: LlmPort, tenant: string): LlmPort {
  return {
    get enabled() {
      return llm.enabled;
    },
    get maxOutputTokens() {
      return llm.maxOutputTokens;
    },
    modelFor: (feature) => llm.modelFor(feature),
    documentBudgetChars: (feature, reserveTokens) => llm.documentBudgetChars(feature, reserveTokens),
    estimateTokens: (text) => llm.estimateTokens(text),
    complete: (req: LlmRequest) => llm.complete({ ...req, tenant }),
    structured: (req: StructuredRequest) => llm.structured({ ...req, tenant }),
  };
}
