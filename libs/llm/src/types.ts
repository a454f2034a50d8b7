/** Every feature that calls the model; each may get its own model (WDS_LLM_MODEL_<FEATURE>). */
export const LLM_FEATURES = [
  'json',
  'summary',
  'question',
  'highlights',
  'clean',
  'crawlParams',
  'changeTracking',
  'branding',
  'extract',
  'agent',
  'docs',
] as const;
export type LlmFeature = (typeof LLM_FEATURES)[number];

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Token counts of one feature's call(s), from the provider's `usage` (estimated when absent). */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** True when the provider reported no usage and the counts are estimates from text length. */
  estimated: boolean;
}

export const NO_USAGE: LlmUsage = Object.freeze({
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  estimated: false,
});

export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    estimated: a.estimated || b.estimated,
  };
}

/**
 * One request. Either `messages` as they are (no budgeting), or `system` + `instruction` +
 * `document`: the port renders the user message itself so it can truncate the document to the
 * model's context window (and shrink it again if the provider still reports an overflow).
 */
export interface LlmRequest {
  feature: LlmFeature;
  messages?: ChatMessage[];
  system?: string;
  instruction?: string;
  document?: { text: string; /** e.g. the page URL, shown to the model */ source?: string };
  /** Upper bound of generated tokens (default: the port's maxOutputTokens). */
  maxTokens?: number;
  temperature?: number;
  /** Overall deadline of the call including queueing and retries (the caller's request timeout). */
  signal?: AbortSignal;
  /**
   * Who the call is for (the team id): when calls queue for the replica's slots, tenants take
   * turns, so one team's many calls cannot hold back another team's (unset: one shared tenant).
   */
  tenant?: string;
}

export interface LlmTextResult {
  text: string;
  usage: LlmUsage;
  model: string;
  finishReason: string | undefined;
  /** True when the document was cut to fit the context window. */
  truncated: boolean;
  /** Warnings for the caller's response (truncation, …). */
  warnings: string[];
}

export interface StructuredRequest extends LlmRequest {
  /** JSON Schema the answer must satisfy (validated with ajv). */
  schema: Record<string, unknown>;
  /** A short identifier for providers that want a name (OpenAI `json_schema.name`). */
  schemaName?: string;
}

export interface LlmStructuredResult extends Omit<LlmTextResult, 'text'> {
  /** The parsed value; present only when it satisfies the schema. */
  value: unknown;
  valid: boolean;
  /** The model's last raw answer (for logs; never returned as data when invalid). */
  raw: string;
  /** Whether a repair round was needed. */
  repaired: boolean;
}

/** THE port every LLM feature uses. */
export interface LlmPort {
  /** Whether a provider is configured at all. */
  readonly enabled: boolean;
  /** The model a feature uses (after per-feature overrides). */
  modelFor(feature: LlmFeature): string;
  /** Characters of document text that fit one request next to `reserveTokens` of prompt/output. */
  documentBudgetChars(feature: LlmFeature, reserveTokens: number): number;
  /** Estimated tokens of a text (for output-budget decisions such as onlyCleanContent). */
  estimateTokens(text: string): number;
  readonly maxOutputTokens: number;
  complete(req: LlmRequest): Promise<LlmTextResult>;
  structured(req: StructuredRequest): Promise<LlmStructuredResult>;
}
