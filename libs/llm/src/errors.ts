export type LlmErrorKind =
  /** No provider configured (WDS_LLM_BASE_URL unset). */
  | 'not_configured'
  /** The caller's deadline or the per-attempt timeout passed. */
  | 'timeout'
  /** 429 after every retry. */
  | 'rate_limited'
  /** 5xx / network failure after every retry, or a 4xx the provider gave. */
  | 'provider'
  /** The prompt did not fit the model's context even after shrinking the document. */
  | 'context_overflow'
  /** The caller's JSON Schema cannot be compiled. */
  | 'invalid_schema'
  /** The caller aborted. */
  | 'aborted';

/** Every failure of the LLM port; `message` is safe to show to API callers (no secrets, no prompt). */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    /** On context_overflow, what the provider said it got and can take (when it said so). */
    readonly overflow?: { promptTokens: number; contextTokens: number },
  ) {
    super(message);
    this.name = 'LlmError';
  }
}
