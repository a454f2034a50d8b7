/** Injection token of the LLM port (`LlmPort` of @wds/llm). */
export const DOCS_LLM = 'DOCS_LLM';
