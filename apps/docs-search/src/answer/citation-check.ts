import type { Passage } from '../corpus/passage';
import { terms } from './extractive';

/**
 * A sentence of the answer is attributed to a cited passage only when the passage contains at
 * least this share of the sentence's content words (weighted, see `coverage`).
 */
export const MIN_SUPPORT = 0.5;
/** Words of the question count this much: every retrieved passage shares them, so they tell passages apart least. */
const QUESTION_WORD_WEIGHT = 0.5;

/** The answer's sentences (or lines), without citation markers such as `[2]`. */
export function answerSentences(answer: string): string[] {
  return answer
    .replace(/\s*\[\d+(?:\s*,\s*\d+)*\]/g, '')
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => terms(s).length >= 2);
}

/**
 * How much of a sentence a passage supports: the weighted share of the sentence's distinct content
 * words (5-letter stems, as the extractive answer uses) that occur in the passage's heading trail
 * or body; words of the question weigh `QUESTION_WORD_WEIGHT`, the others 1.
 */
export function coverage(sentence: string, passageWords: Set<string>, questionWords: Set<string>): number {
  let total = 0;
  let found = 0;
  for (const t of new Set(terms(sentence))) {
    const w = questionWords.has(t) ? QUESTION_WORD_WEIGHT : 1;
    total += w;
    if (passageWords.has(t)) found += w;
  }
  return total ? found / total : 0;
}

export interface CitationCheck {
  /** Indexes (into the `cited` argument) of the citations the answer rests on, in the given order. */
  kept: number[];
  /** Indexes of the citations no sentence of the answer was attributed to. */
  unsupported: number[];
  /** Per citation, the best coverage of any answer sentence. */
  support: number[];
}

/**
 * Deterministic post-check of a model's citations against the answer it wrote: each answer
 * sentence is attributed to the cited passage that covers most of its words (ties go to the
 * earlier citation, i.e. the better-ranked passage when the caller passes them in retrieval
 * order), if that passage covers at least `MIN_SUPPORT` of it. Citations that no sentence is
 * attributed to are unsupported: the model cited them without taking anything from them (a small
 * model tends to cite every passage it was shown). When no sentence reaches the threshold (a
 * paraphrase, or "the documentation does not cover it"), the single best-supported citation is
 * kept, so an answer the model wrote with a valid citation always keeps one.
 */
export function checkCitations(
  answer: string,
  question: string,
  cited: Pick<Passage, 'title' | 'body'>[],
): CitationCheck {
  if (cited.length === 0) return { kept: [], unsupported: [], support: [] };
  const questionWords = new Set(terms(question));
  const words = cited.map((p) => new Set(terms(`${p.title} ${p.body}`)));
  const sentences = answerSentences(answer);
  const support = cited.map(() => 0);
  const total = cited.map(() => 0);
  const attributed = new Set<number>();
  for (const s of sentences) {
    let best = -1;
    let bestCoverage = -1;
    words.forEach((w, i) => {
      const c = coverage(s, w, questionWords);
      support[i] = Math.max(support[i], c);
      total[i] += c;
      if (c > bestCoverage) {
        bestCoverage = c;
        best = i;
      }
    });
    if (bestCoverage >= MIN_SUPPORT) attributed.add(best);
  }
  if (attributed.size === 0) {
    let best = 0;
    total.forEach((t, i) => {
      if (t > total[best]) best = i;
    });
    attributed.add(best);
  }
  const kept = cited.map((_, i) => i).filter((i) => attributed.has(i));
  const unsupported = cited.map((_, i) => i).filter((i) => !attributed.has(i));
  return { kept, unsupported, support };
}
