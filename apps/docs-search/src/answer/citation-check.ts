import type { Passage } from '../corpus/passage';
import { sentences, terms } from './extractive';

/**
 * A sentence of the answer is attributed to a passage only when the passage contains at least this
 * share of the sentence's content words (weighted, see `coverage`).
 */
export const MIN_SUPPORT = 0.5;
/**
 * Words an answer sentence is written with rather than about (auxiliaries, "means", "set"): they are
 * in most long passages, so they would lend a passage support for any sentence.
 */
const FILLER = new Set(
  'has have had been being were does did get gets can could may might must means mean also than just only any all'
    .split(' ')
    .map((w) => w.slice(0, 5)),
);
/**
 * The platform's own name in an answer ("… endpoint of the Web Data Service API") is about no
 * passage in particular, but every section of the API spec carries it in its heading trail.
 */
const PRODUCT_NAME = /\b(?:web data service(?:\s+api)?|wds)\b/gi;
/** Words of the question count this much: every retrieved passage shares them, so they tell passages apart least. */
const QUESTION_WORD_WEIGHT = 0.5;

/**
 * An answer with fewer content words than this ("429", "Yes", "limit, cursor") says too little to
 * tell the passages apart on its own: it is attributed as one sentence together with the question
 * it answers (whose words count `QUESTION_WORD_WEIGHT`).
 */
export const SHORT_ANSWER_TERMS = 3;

function withoutMarkers(answer: string): string {
  return answer.replace(/\s*\[\d+(?:\s*,\s*\d+)*\]/g, '');
}

/** The answer's sentences (or lines), without citation markers such as `[2]`. */
export function answerSentences(answer: string): string[] {
  return withoutMarkers(answer)
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => terms(s).length >= 2);
}

/**
 * What of the answer is attributed: its sentences, or, for a short answer, the answer and the
 * question together (a bare "429" is in every passage that lists status codes; the question's
 * "rate limit" tells which of them states it).
 */
export function attributedSentences(answer: string, question: string): string[] {
  const text = withoutMarkers(answer).trim();
  const words = terms(text);
  if (new Set(words).size >= SHORT_ANSWER_TERMS) return answerSentences(answer);
  return words.length || terms(question).length ? [`${question} ${text}`] : [];
}

/**
 * How much of a sentence a text supports: the weighted share of the sentence's distinct content
 * words (5-letter stems, as the extractive answer uses) that occur in the text's words; words of
 * the question weigh `QUESTION_WORD_WEIGHT`, the others 1.
 */
export function coverage(sentence: string, textWords: Set<string>, questionWords: Set<string>): number {
  let total = 0;
  let found = 0;
  for (const t of new Set(terms(sentence.replace(PRODUCT_NAME, ' ')))) {
    if (FILLER.has(t)) continue;
    const w = questionWords.has(t) ? QUESTION_WORD_WEIGHT : 1;
    total += w;
    if (textWords.has(t)) found += w;
  }
  return total ? found / total : 0;
}

/**
 * Whether an answer only says that the documentation does not state what was asked (the prompt
 * tells the model to say so rather than answer from passages that do not answer): every sentence
 * (`answerSentences`) is such a statement. Such an answer is taken from no passage, so it has no
 * evidence.
 */
export function saysNotStated(answer: string): boolean {
  const all = answerSentences(answer);
  return all.length > 0 && all.every((s) => NOT_STATED_SENTENCE.test(s));
}

const NOT_STATED_SENTENCE =
  /^(?:(?:the|this|these)\s+)?(?:documentation|docs|passages?|reference)\b.{0,40}?\b(?:does not|do not|doesn't|don't)\s+(?:state|cover|say|mention|specify|describe|address|answer)\b/i;

/**
 * An answer sentence at least this share of whose content words are the question's restates the
 * question ("To install the platform on Kubernetes with Helm, follow these steps:"): it states
 * nothing a passage could support that the question did not already bring, and the passage that
 * shares most of the question's words is not the one the answer was taken from. Such sentences
 * are not attributed while the answer has others.
 */
export const RESTATES_SHARE = 2 / 3;

/** Whether `sentence` only restates the question (see `RESTATES_SHARE`). */
export function restatesQuestion(sentence: string, questionWords: Set<string>): boolean {
  const own = [...new Set(terms(sentence))].filter((t) => !FILLER.has(t));
  return own.length > 0 && own.filter((t) => questionWords.has(t)).length / own.length >= RESTATES_SHARE;
}

/**
 * The share of an answer sentence's embedding similarity in choosing its passage: the passage's
 * score is its word coverage plus this times the cosine of the sentence with the passage's closest
 * sentence (`closest` over the index's sentence vectors). Words decide where they tell passages
 * apart; where two passages share the sentence's words (an option listed in two tables, a status
 * code in two lists) the one stating the same thing in a sentence of its own wins. The coverage
 * threshold still applies to the chosen passage.
 */
export const SIMILARITY_WEIGHT = 0.5;

/** An HTTP route: a method and a path (template segments such as `{id}` match any segment). */
export interface Route {
  method?: string;
  path: string;
}

/** The route an OpenAPI operation's passage documents, read from its heading (`API › POST /v2/crawl — …`). */
export function operationRoute(title: string): Route | undefined {
  const m = /^API › (GET|POST|PUT|PATCH|DELETE) (\/\S*)/.exec(title);
  return m ? { method: m[1], path: m[2] } : undefined;
}

/** Routes an answer names (`/v2/crawl/{id}`, `GET /v2/team/activity`), with the method when one precedes the path. */
export function namedRoutes(answer: string): Route[] {
  const routes: Route[] = [];
  for (const m of answer.matchAll(
    /(?:\b(GET|POST|PUT|PATCH|DELETE)\s+)?(\/(?:v\d+|admin)\/[\w{}<>:.~-]+(?:\/[\w{}<>:.~-]+)*)/gi,
  )) {
    routes.push({ method: m[1]?.toUpperCase(), path: m[2].replace(/[.:]+$/, '') });
  }
  return routes;
}

/** Whether a route named in an answer is the operation's route. */
export function sameRoute(named: Route, operation: Route): boolean {
  if (named.method && operation.method && named.method !== operation.method) return false;
  const a = named.path.split('/');
  const b = operation.path.split('/');
  return a.length === b.length && b.every((seg, i) => seg === a[i] || /^\{.+\}$/.test(seg));
}

/**
 * Operation passages shown that document a route other than those the answer names, when the
 * answer names the route of at least one operation shown: near-twin operations (the admin API's
 * `GET /admin/v1/teams/{teamId}/activity` mirrors `GET /v2/team/activity`; `DELETE` and `GET` of one
 * path) share most words, and an answer that says which route it is about is not taken from the
 * other's passage. Empty when the answer names no shown operation's route.
 */
export function otherRoutes(answer: string, shown: Pick<Passage, 'title'>[]): Set<number> {
  const named = namedRoutes(answer);
  const ops = shown.map((p) => operationRoute(p.title));
  const matches = ops.map((op) => op !== undefined && named.some((n) => sameRoute(n, op)));
  if (!matches.some(Boolean)) return new Set();
  return new Set(ops.flatMap((op, i) => (op && !matches[i] ? [i] : [])));
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
 * Deterministic check of which passages a written answer rests on. Each answer sentence (but one
 * that only restates the question, `restatesQuestion`) is attributed to the passage shown to the
 * model that covers most of its words, plus `SIMILARITY_WEIGHT` times its embedding similarity
 * when `similarity` gives it (per sentence of `attributedSentences`, per passage shown), among
 * the passages covering at least `MIN_SUPPORT` of the words and, when the answer names the route of an
 * operation shown, not documenting another route (`otherRoutes`) (ties go to the passage with one sentence,
 * table row or list item covering most of it, then to a passage the model cited, then to the
 * better-ranked one). A short answer ("429", "Yes") is attributed together with its question
 * (`attributedSentences`). A small model's citation numbers are unreliable both ways: it cites
 * passages it took nothing from (every passage it was shown, when asked for "the passages you
 * used") and it puts the wrong number on the passage it did take the answer from; the words of
 * the answer show which one that was. When no sentence reaches the threshold (a one-word answer, a
 * paraphrase, "the documentation does not cover it"), the model's best-supported citation is kept,
 * so an answer written with a valid citation always keeps one.
 */
export function attributeAnswer(
  answer: string,
  question: string,
  shown: Pick<Passage, 'title' | 'body'>[],
  cited: ReadonlySet<number>,
  similarity?: ReadonlyMap<string, readonly number[]>,
): Attribution {
  const questionWords = new Set(terms(question));
  const all = attributedSentences(answer, question);
  const stating = all.filter((s) => !restatesQuestion(s, questionWords));
  const attributed = stating.length ? stating : all;
  const words = shown.map((p) => new Set(terms(`${p.title} ${p.body}`)));
  const offRoute = otherRoutes(answer, shown);
  const support = shown.map(() => 0);
  const total = shown.map(() => 0);
  const quotes = new Map<number, string>();
  const bestSentence = new Map<number, { sentence: string; coverage: number }>();
  for (const s of attributed) {
    // Per passage: its coverage of the sentence, its score (coverage, plus the embedding
    // similarity when known), and (used only on ties) the coverage of its one sentence, table row
    // or list item that states most of it.
    const sim = similarity?.get(s);
    const scored = words.map((w, i) => {
      const c = coverage(s, w, questionWords);
      return { i, c, score: c + SIMILARITY_WEIGHT * Math.max(0, sim?.[i] ?? 0), line: -1 };
    });
    for (const { i, c } of scored) {
      support[i] = Math.max(support[i], c);
      total[i] += c;
    }
    // Only passages covering enough of the sentence's words are candidates; the best score wins.
    const candidates = scored.filter((x) => x.c >= MIN_SUPPORT && !offRoute.has(x.i));
    if (!candidates.length) continue;
    const topScore = Math.max(...candidates.map((x) => x.score));
    const tied = candidates.filter((x) => x.score === topScore);
    if (tied.length > 1)
      for (const x of tied) x.line = closestSentence(shown[x.i].body, s, questionWords).coverage;
    // Ties go to the passage stating it in one sentence, then to a cited one, then to the better-ranked one.
    tied.sort((a, b) => b.line - a.line || Number(cited.has(b.i)) - Number(cited.has(a.i)) || a.i - b.i);
    const { i: best, c: top } = tied[0];
    const known = bestSentence.get(best);
    if (!known || top > known.coverage) bestSentence.set(best, { sentence: s, coverage: top });
  }
  if (bestSentence.size === 0) {
    let best = -1;
    for (const i of cited) if (shown[i] && (best < 0 || total[i] > total[best])) best = i;
    return { used: best >= 0 ? [best] : [], support, quotes };
  }
  for (const [i, { sentence }] of bestSentence) {
    const quote = closestSentence(shown[i].body, sentence, questionWords).sentence;
    if (quote) quotes.set(i, quote);
  }
  return { used: [...bestSentence.keys()].sort((a, b) => a - b), support, quotes };
}

/**
 * The sentence (list item, table row) of a passage body that covers most of an answer sentence,
 * and how much of it.
 */
function closestSentence(
  body: string,
  answerSentence: string,
  questionWords: Set<string>,
): { sentence?: string; coverage: number } {
  let best: string | undefined;
  let bestCoverage = 0;
  for (const s of sentences(body)) {
    const c = coverage(answerSentence, new Set(terms(s)), questionWords);
    if (c > bestCoverage) {
      bestCoverage = c;
      best = s;
    }
  }
  return { sentence: best, coverage: bestCoverage };
}
