import { CREDIT_PRICES, type Document, type ScrapeRunRequest } from '@wds/contracts';
import type { LlmPort, LlmUsage } from '@wds/llm';

export type ScrapeOptions = ScrapeRunRequest['options'];

/** What one LLM format sees: the page's markdown (after onlyCleanContent) and the request. */
export interface LlmFormatInput {
  options: ScrapeOptions;
  markdown: string;
  url: string;
  llm: LlmPort;
  /** Aborts at the scrape's deadline. */
  signal: AbortSignal;
}

/** What one LLM format adds: document fields, warnings, its credits and the tokens it spent. */
export interface LlmFormatOutcome {
  fields: Partial<Document>;
  warnings: string[];
  /** Credits of the format (api-v2 per-format prices); 0 when the model was not called. */
  credits: number;
  usage?: LlmUsage;
  model?: string;
}

/**
 * One LLM-backed scrape format. Formats are independent modules in a registry
 * (`llm-formats.ts`): each says whether a request asks for it and computes its fields.
 */
export interface LlmFormat {
  /** The format's name in warnings and logs (`json`, `summary`, ...). */
  readonly name: string;
  requested(o: ScrapeOptions): boolean;
  run(input: LlmFormatInput): Promise<LlmFormatOutcome>;
}

export const LLM_FORMAT_CREDITS = CREDIT_PRICES.llmFormat;

export function skipped(warning: string): LlmFormatOutcome {
  return { fields: {}, warnings: [warning], credits: 0 };
}
