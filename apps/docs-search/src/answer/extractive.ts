import type { DocsSearchEvidence } from '@wds/contracts';
import type { Retrieved } from '../search/retriever';

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how i if in is it its me my of on or our should so that the their them then there these this to up use used using was what when where which who why will with would you your'.split(
    ' ',
  ),
);

/**
 * Lower-case content words of a text, cut to a 5-letter stem so "retries"/"retried" meet; a token
 * with a digit (a limit, a status code, `v2`) is kept whole: 100000 is not 10000.
 */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9_-]*/g) ?? [])
    .filter((w) => !STOPWORDS.has(w) && w.length > 1)
    .map((w) => (/\d/.test(w) ? w : w.slice(0, 5)));
}

/** Sentences (or list items / table rows) of a markdown body, without markup noise. */
export function sentences(body: string): string[] {
  return body
    .replace(/```[\s\S]*?```/g, ' ')
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`*])/)
    .map((s) =>
      s
        .replace(/^#+\s*/, '')
        .replace(/^\s*[-*|>]\s*/, '')
        .replace(/\s*\|\s*/g, ' | ')
        .trim(),
    )
    .filter((s) => s.length >= 20);
}

export interface ExtractiveAnswer {
  answer: string;
  evidence: DocsSearchEvidence[];
}

/**
 * An answer without a model: from each of the best passages, the sentence that shares the most
 * content words with the question, quoted with its citation number.
 */
export function extractiveAnswer(question: string, retrieved: Retrieved[], max = 3): ExtractiveAnswer {
  const wanted = new Set(terms(question));
  const picked = retrieved.slice(0, max).map((r, i) => {
    let best = '';
    let bestScore = -1;
    for (const s of sentences(r.passage.body)) {
      const overlap = new Set(terms(s).filter((t) => wanted.has(t))).size;
      // Prefer more shared words, then shorter sentences (less to read for the same match).
      const score = overlap - s.length / 10_000;
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    const matched = [...new Set(terms(r.passage.title + ' ' + best).filter((t) => wanted.has(t)))];
    return { r, n: i + 1, sentence: best || r.passage.title, matched };
  });
  if (picked.length === 0) {
    return { answer: 'The reference has no passage about this question.', evidence: [] };
  }
  const answer = [
    'From the reference:',
    ...picked.map((p) => `- ${p.r.passage.title.split(' › ').pop()}: "${clip(p.sentence, 400)}" [${p.n}]`),
  ].join('\n');
  const evidence = picked.map((p) => ({
    pathOrUrl: p.r.passage.ref,
    reason: p.matched.length
      ? `Section "${p.r.passage.title}" matches the question's terms (${p.matched.join(', ')})`
      : `Section "${p.r.passage.title}" ranked among the closest to the question`,
  }));
  return { answer, evidence };
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}
