/**
 * Size estimates made before a request is sent. Without the model's tokenizer (any provider may
 * be behind the port) tokens are estimated from characters with a conservative ratio
 * (WDS_LLM_CHARS_PER_TOKEN, default 3; English prose is ~4 for Qwen/GPT tokenizers); a provider
 * that still reports an overflow gets the document again at half the size.
 */
export function estimateTokens(text: string, charsPerToken: number): number {
  return Math.ceil(text.length / charsPerToken);
}

/** Cuts `text` to at most `maxChars`, at the last paragraph or line break inside the limit when there is one near it. */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return '';
  const cut = text.slice(0, maxChars);
  const para = cut.lastIndexOf('\n\n');
  if (para > maxChars * 0.8) return cut.slice(0, para);
  const line = cut.lastIndexOf('\n');
  if (line > maxChars * 0.9) return cut.slice(0, line);
  return cut;
}

export const TRUNCATION_WARNING =
  'The page was too long to process in full; only its first part was given to the model, so the result may miss content from the rest of the page.';
