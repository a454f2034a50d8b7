import type { Passage } from '../corpus/passage';
import { sentences, terms } from './extractive';

/**
 * A sentence of the answer is attributed to a passage only when the passage contains at least this
 * share of the sentence's content words (weighted, see `coverage`).
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
 * How much of a sentence a text supports: the weighted share of the sentence's distinct content
 * words (5-letter stems, as the extractive answer uses) that occur in the text's words; words of
 * the question weigh `QUESTION_WORD_WEIGHT`, the others 1.
 */
export function coverage(sentence: string, textWords: Set<string>, questionWords: Set<string>): number {
  let total = 0;
  let found = 0;
  for (const t of new Set(terms(sentence))) {
    const w = questionWords.has(t) ? QUESTION_WORD_WEIGHT : 1;
    total += w;
    if (textWords.has(t)) found += w;
  }
  return total ? found / total : 0;
}

export interface Attribution {
  /** Indexes (into the passages shown) of the passages the answer rests on, in rank order. */
  used: number[];
  /** Per passage shown, the best coverage of any answer sentence. */
  support: number[];
  /** Per used passage, its sentence that covers most of the answer sentence attributed to it. */
  quotes: Map<number, string>;
}

/**
 * Deterministic check of which passages a written answer rests on. Each answer sentence is
 * attributed to the passage shown to the model that covers most of its words, if that passage
 * covers at least `MIN_SUPPORT` of them (ties go to a passage the model cited, then to the
 * better-ranked one). A small model's citation numbers are unreliable both ways: it cites passages
 * it took nothing from (every passage it was shown, when asked for "the passages you used") and
 * it puts the wrong number on the passage it did take the answer from; the words of the answer
 * show which one that was. When no sentence reaches the threshold (a one-word answer, a
 * paraphrase, "the documentation does not cover it"), the model's best-supported citation is kept,
 * so an answer written with a valid citation always keeps one.
 */
export function attributeAnswer(
  answer: string,
  question: string,
  shown: Pick<Passage, 'title' | 'body'>[],
  cited: ReadonlySet<number>,
): Attribution {
  const questionWords = new Set(terms(question));
  const words = shown.map((p) => new Set(terms(`${p.title} ${p.body}`)));
  const support = shown.map(() => 0);
  const total = shown.map(() => 0);
  const quotes = new Map<number, string>();
  const bestSentence = new Map<number, { sentence: string; coverage: number }>();
  for (const s of answerSentences(answer)) {
    let best = -1;
    let bestCoverage = -1;
    words.forEach((w, i) => {
      const c = coverage(s, w, questionWords);
      support[i] = Math.max(support[i], c);
      total[i] += c;
      const better =
        c > bestCoverage || (c === bestCoverage && best >= 0 && cited.has(i) && !cited.has(best));
      if (better) {
        bestCoverage = c;
        best = i;
      }
    });
    if (best >= 0 && bestCoverage >= MIN_SUPPORT) {
      const known = bestSentence.get(best);
      if (!known || bestCoverage > known.coverage)
        bestSentence.set(best, { sentence: s, coverage: bestCoverage });
    }
  }
  if (bestSentence.size === 0) {
    let best = -1;
    for (const i of cited) if (shown[i] && (best < 0 || total[i] > total[best])) best = i;
    return { used: best >= 0 ? [best] : [], support, quotes };
  }
  for (const [i, { sentence }] of bestSentence) {
    const quote = closestSentence(shown[i].body, sentence, questionWords);
    if (quote) quotes.set(i, quote);
  }
  return { used: [...bestSentence.keys()].sort((a, b) => a - b), support, quotes };
}

/** The sentence (list item, table row) of a passage body that covers most of an answer sentence. */
function closestSentence(
  body: string,
  answerSentence: string,
  questionWords: Set<string>,
): string | undefined {
  let best: string | undefined;
  let bestCoverage = 0;
  for (const s of sentences(body)) {
    const c = coverage(answerSentence, new Set(terms(s)), questionWords);
    if (c > bestCoverage) {
      bestCoverage = c;
      best = s;
    }
  }
  return best;
}
