/** A sentence of the markdown: its exact text (a substring of the markdown) and its index. */
export interface Sentence {
  index: number;
  text: string;
}

const MAX_SENTENCES = 600;
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The markdown's sentences, each a verbatim (trimmed) substring of it: paragraphs and lines are
 * split first so headings and list items are their own units, then ICU sentence boundaries.
 * Units without a letter or digit (rules, table borders) are left out.
 */
export function splitSentences(markdown: string): Sentence[] {
  const out: Sentence[] = [];
  for (const line of markdown.split(/\n+/)) {
    for (const seg of segmenter.segment(line)) {
      const text = seg.segment.trim();
      if (!/[\p{L}\p{N}]/u.test(text)) continue;
      out.push({ index: out.length, text });
      if (out.length >= MAX_SENTENCES) return out;
    }
  }
  return out;
}
