import type { Passage } from '../corpus/passage';
import { embeddingText } from '../index/build-index';
import { dot, type Embedder } from '../index/embedder';
import type { PassageStore } from '../index/passage-store';

/** Candidates each ranking contributes before fusion. */
const POOL = 40;
/**
 * Reciprocal-rank-fusion constant: how much the head of each ranking outweighs its tail. Small,
 * because each ranking alone puts the answering passage near the top more often than not.
 */
const RRF_K = 10;

/**
 * What kind of document a passage is in. Users ask how to use the platform; the user-facing
 * reference (the API spec, user docs, READMEs of the services and charts, the OpenAPI document)
 * answers that, while decision records, benchmark logs and library internals mention the same
 * words for other reasons. They stay searchable, one step down: their contributions to the fused
 * score count INTERNAL_PRIOR times, the benchmark log's MEASUREMENT_LOG_PRIOR times (recall@3 over
 * the 91 evaluation questions 0.857 without a prior, 0.912 with 0.6 for all three;
 * tools/bench/docs-search/measurements.md, 2026-11-27 evening).
 */
export function isInternalSource(source: string): boolean {
  return /^(docs\/adr\/|docs\/benchmarks\.md$|libs\/)/.test(source);
}
/**
 * Decision records and library READMEs: 0.8 since session 25 (0.6 before). Operators' questions in
 * their own words are often answered there (the migration lock, the proxy exemption, what the LLM
 * spans hold) while 0.6 ranked user docs that only share the words above them; the benchmark log,
 * which records measurements rather than behaviour, stays at 0.6. Recall@3 over the 131 design
 * questions 0.863 → 0.885, the designed 71 0.986 → 0.972; held out (looked at once) A 0.80 → 0.80,
 * B 0.767 → 0.80; all 181 0.840 → 0.862 (measurements.md, session 25).
 */
const INTERNAL_PRIOR = 0.8;
const MEASUREMENT_LOG_PRIOR = 0.6;
const MEASUREMENT_LOG = 'docs/benchmarks.md';
/**
 * The vector ranking's share in the fusion: MiniLM finds paraphrases the lexemes miss, but on this
 * technical reference (option names, status codes) the lexical ranking is the more precise of the
 * two (recall@3 alone ~0.66 vs ~0.89). 0.6 was chosen on the evaluation set
 * (tools/bench/docs-search/measurements.md: 0.930 on two states of the docs, where 0.75 gave
 * 0.887–0.901 and 0.5 0.944).
 */
const VECTOR_WEIGHT = 0.6;
/**
 * The closest-sentence ranking's share in the fusion: a passage ranked by the best cosine of the
 * question with one of its sentences (list items, table rows). A whole-passage vector averages a
 * long section's many topics away; the one row or sentence that states the answer is found by its
 * own vector. Weighted as the passage vectors are (not tuned): recall@3 0.868 → 0.912 over the 91
 * evaluation questions, 0.65 → 0.80 on the 20 held out (written by another author), recall@1 there
 * 0.60 → 0.65 (tools/bench/docs-search/measurements.md).
 */
const SENTENCE_WEIGHT = 0.6;
/**
 * At most this many of the passages returned (after the late-interaction re-ordering) come from
 * one source while others are left: the model is shown three passages, and three sections of one
 * document (typically neighbouring OpenAPI operations, `interact` post and delete) leave out the
 * user docs that answer. Passages over the cap are only used when nothing else is left. Measured
 * with the sentence ranking it no longer changes recall@3 (0.912 with and without) and keeps
 * recall@5 at 0.945 against 0.934; the earlier 0.915 → 0.944 was measured against a
 * full-text-only variant (a bench bug). With the re-ordering of the first 25, recall@3 0.890 with
 * and without (session 29).
 */
const PER_SOURCE = 2;
/**
 * Late interaction as a second stage: the fused ranking's first RERANK_DEPTH passages are scored
 * by MaxSim over the embedding model's token vectors (`Embedder.lateInteraction`) and re-ordered
 * by the reciprocal ranks of both orders, the MaxSim order weighing RERANK_WEIGHT times the fused
 * one, with constant RERANK_K (large: the two orders are blended, neither one's head dominates).
 * A passage's one vector averages its many topics, and full text matches word stems only; token
 * vectors match each of the question's words, in context, with the passage's closest one.
 * The token vectors are stored with the index, so the re-ordering costs milliseconds per passage
 * (before session 29 they were computed per question: ~1 s for 10, so 10 shipped). Session 29,
 * live, the cap applied after the re-ordering: recall@3 over the 131 design questions 0.885 (none)
 * → 0.901 (10) → 0.916 (25) = 0.916 (40); all 181 0.862 → 0.878 → 0.890 → 0.884; held out
 * A + B 0.80 → 0.82 → 0.82 → 0.80; ~150 ms per question at 25 (measurements.md, session 29).
 */
const RERANK_DEPTH = 25;
const RERANK_WEIGHT = 1;
const RERANK_K = 60;

/** The ranking's knobs (the defaults are the shipped ranking; the benchmark compares variants). */
export interface RankingOptions {
  /** Candidates each ranking contributes before fusion. */
  pool: number;
  /** Reciprocal-rank-fusion constant. */
  rrfK: number;
  /** The vector ranking's share in the fusion (the full-text ranking's is 1). */
  vectorWeight: number;
  /** The closest-sentence vector ranking's share in the fusion (0: not used). */
  sentenceWeight: number;
  /** Factor on the fused score of a passage of an internal document (decision records, libraries). */
  internalPrior: number;
  /** Factor on the fused score of a passage of the benchmark log (`docs/benchmarks.md`). */
  measurementLogPrior: number;
  /** Passages of one source among those returned while passages of other sources are left (0: no cap). */
  perSource: number;
  /** First passages of the fused ranking re-ordered by late interaction (0: none). */
  rerankDepth: number;
  /** The late-interaction order's share in the re-ordering (the fused order's is 1). */
  rerankWeight: number;
  /** Reciprocal-rank constant of the re-ordering. */
  rerankK: number;
}

export const DEFAULT_RANKING: RankingOptions = {
  pool: POOL,
  rrfK: RRF_K,
  vectorWeight: VECTOR_WEIGHT,
  sentenceWeight: SENTENCE_WEIGHT,
  internalPrior: INTERNAL_PRIOR,
  measurementLogPrior: MEASUREMENT_LOG_PRIOR,
  perSource: PER_SOURCE,
  rerankDepth: RERANK_DEPTH,
  rerankWeight: RERANK_WEIGHT,
  rerankK: RERANK_K,
};

export interface Retrieved {
  passage: Passage;
  score: number;
  /** The rankings that found it (`rerank`: late interaction re-ordered it). */
  via: ('text' | 'vector' | 'rerank')[];
  /**
   * The question's cosine with each of the passage's sentences, list items and table rows (in the
   * order of `sentences(body)`), when the embedding model is loaded: what `passageView` shows of a
   * long passage.
   */
  focus?: number[];
}

/**
 * Hybrid retrieval: PostgreSQL full text (lexemes, headings weighted) and, when the embedding model
 * is loaded, exact cosine similarity over every stored vector, fused by reciprocal rank.
 */
export class Retriever {
  private vectors: { ref: string; source: string; embedding: Float32Array; sentences: Float32Array }[] = [];
  private sentencesByRef = new Map<string, Float32Array>();

  private readonly ranking: RankingOptions;

  constructor(
    private readonly store: PassageStore,
    readonly embedder: Embedder | undefined,
    ranking: Partial<RankingOptions> = {},
  ) {
    this.ranking = { ...DEFAULT_RANKING, ...ranking };
  }

  get hybrid(): boolean {
    return Boolean(this.embedder) && this.vectors.length > 0;
  }

  /** Reloads the vectors after the index changed. */
  async refresh(): Promise<void> {
    this.vectors = this.embedder ? await this.store.vectors(this.embedder.modelId) : [];
    this.sentencesByRef = new Map(this.vectors.map((v) => [v.ref, v.sentences]));
  }

  /**
   * The `k` best passages for a question. `expansion` is what a language model expects the answer
   * to say (`AnswerModel.expand`): the vector rankings then match the question together with it,
   * so a passage stating the answer in other words than the question's is found by the words it
   * shares with the expected answer. The full-text ranking keeps to the question's own words: a
   * model's guess must not outvote them.
   */
  async retrieve(question: string, k: number, expansion?: string): Promise<Retrieved[]> {
    const { pool, rrfK, vectorWeight, sentenceWeight, internalPrior, measurementLogPrior, perSource } =
      this.ranking;
    const [text, vector] = await Promise.all([
      this.store.searchText(question, pool),
      this.vectorRankings(expansion ? `${question} ${expansion}` : question, pool),
    ]);
    const fused = new Map<string, { score: number; source: string; via: Set<'text' | 'vector'> }>();
    const add = (hits: { ref: string; source: string }[], via: 'text' | 'vector', weight: number) =>
      hits.forEach(({ ref, source }, i) => {
        const entry = fused.get(ref) ?? { score: 0, source, via: new Set() };
        const prior =
          source === MEASUREMENT_LOG ? measurementLogPrior : isInternalSource(source) ? internalPrior : 1;
        entry.score += (prior * weight) / (rrfK + i + 1);
        entry.via.add(via);
        fused.set(ref, entry);
      });
    add(text, 'text', 1);
    add(vector.passages, 'vector', vectorWeight);
    if (sentenceWeight > 0) add(vector.sentences, 'vector', sentenceWeight);
    const ranked = [...fused.entries()].sort((a, b) => b[1].score - a[1].score || a[0].localeCompare(b[0]));
    const rerank = this.ranking.rerankDepth > 0 && vector.query !== undefined;
    // Re-ordered, the first rerankDepth of the whole ranking; then the per-source cap picks the k.
    const top = rerank
      ? ranked.slice(0, Math.max(k, this.ranking.rerankDepth))
      : capPerSource(ranked, k, perSource);
    const passages = await this.store.get(top.map(([ref]) => ref));
    const found = top.flatMap(([ref, e]): Retrieved[] => {
      const passage = passages.get(ref);
      if (!passage) return [];
      const sentences = this.sentencesByRef.get(ref);
      const focus = vector.query && sentences?.length ? cosines(vector.query, sentences) : undefined;
      return [{ passage, score: e.score, via: [...e.via], ...(focus ? { focus } : {}) }];
    });
    if (!rerank) return found;
    const reordered = await this.rerank(question, found);
    return capPerSource(
      reordered.map(
        (r) => [r.passage.ref, { source: r.passage.source, r }] as [string, { source: string; r: Retrieved }],
      ),
      k,
      perSource,
    ).map(([, { r }]) => r);
  }

  /**
   * The first `rerankDepth` of `found` re-ordered by the reciprocal ranks of their order and of
   * their late-interaction scores for the question (its own words: an expected answer's words
   * would outvote them); the rest follow in their order. If the embedding thread or reading the
   * token vectors fails, `found` as it is.
   */
  private async rerank(question: string, found: Retrieved[]): Promise<Retrieved[]> {
    const { rerankDepth, rerankWeight, rerankK } = this.ranking;
    const head = found.slice(0, rerankDepth);
    const embedder = this.embedder;
    if (!embedder) return found;
    // Stored token vectors where the index has them; a passage indexed before its vectors were
    // is read from its text (the embedding thread keeps what it read for a while).
    const scores = await this.store
      .tokenVectors(
        head.map((r) => r.passage.ref),
        embedder.modelId,
      )
      .then((stored) =>
        embedder.lateInteraction(
          question,
          head.map((r) => stored.get(r.passage.ref) ?? embeddingText(r.passage)),
        ),
      )
      .catch(() => undefined);
    if (!scores) return found;
    const blended = blendRanks(scores, rerankWeight, rerankK).map(({ index, score }): Retrieved => ({
      ...head[index],
      score,
      via: [...head[index].via, 'rerank'],
    }));
    return [...blended, ...found.slice(rerankDepth)];
  }

  /**
   * Per text, its cosine with the closest sentence of each passage in `refs` (in their order; 0
   * for a passage without sentence vectors), or undefined without the embedding model or when
   * embedding fails: the answer's post-check then decides by words alone.
   */
  async similarity(texts: string[], refs: string[]): Promise<Map<string, number[]> | undefined> {
    if (!this.embedder || !this.vectors.length || !texts.length) return undefined;
    const vectors = await this.embedder.embed(texts, { urgent: true }).catch(() => undefined);
    if (!vectors) return undefined;
    const sentencesOf = refs.map((ref) => this.sentencesByRef.get(ref));
    return new Map(
      texts.map((t, j) => [
        t,
        sentencesOf.map((sentences) => (sentences?.length ? closest(vectors[j], sentences) : 0)),
      ]),
    );
  }

  /**
   * Two cosine rankings of the stored vectors: by the passage's own vector, and by its sentence
   * closest to the question; with the question's vector (`query`) when it was embedded.
   */
  private async vectorRankings(
    question: string,
    pool: number,
  ): Promise<Record<'passages' | 'sentences', { ref: string; source: string }[]> & { query?: Float32Array }> {
    const none = { passages: [], sentences: [] };
    if (!this.embedder || !this.vectors.length) return none;
    // A question goes before queued index work in the embedding thread; if the thread failed,
    // the full-text ranking answers alone.
    const [q] = await this.embedder.embed([question], { urgent: true, query: true }).catch(() => [undefined]);
    if (!q) return none;
    const top = (scored: { ref: string; source: string; s: number }[]) =>
      scored.sort((a, b) => b.s - a.s).slice(0, pool);
    return {
      query: q,
      passages: top(this.vectors.map((v) => ({ ref: v.ref, source: v.source, s: dot(q, v.embedding) }))),
      sentences: top(
        this.vectors
          .filter((v) => v.sentences.length)
          .map((v) => ({ ref: v.ref, source: v.source, s: closest(q, v.sentences) })),
      ),
    };
  }
}

/**
 * A ranked list re-ordered by second scores: entry i (0 first) scores 1 / (k + i) for its place
 * plus weight / (k + r) for its place r by `scores` (highest first); best first, ties in list order.
 */
export function blendRanks(scores: number[], weight: number, k: number): { index: number; score: number }[] {
  const byScore = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  const rankOf = new Map(byScore.map((i, rank) => [i, rank]));
  return scores
    .map((_, index) => ({ index, score: 1 / (k + index) + weight / (k + rankOf.get(index)!) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

/** The best cosine of `q` with one of `vectors` (unit vectors back to back). */
export function closest(q: Float32Array, vectors: Float32Array): number {
  let best = -Infinity;
  for (let off = 0; off < vectors.length; off += q.length)
    best = Math.max(best, dot(q, vectors.subarray(off, off + q.length)));
  return best;
}

/** The cosine of `q` with each of `vectors` (unit vectors back to back), in their order. */
export function cosines(q: Float32Array, vectors: Float32Array): number[] {
  const out: number[] = [];
  for (let off = 0; off < vectors.length; off += q.length)
    out.push(dot(q, vectors.subarray(off, off + q.length)));
  return out;
}

/**
 * The first `k` of a ranking with at most `perSource` entries of one source, in rank order; when
 * the cap leaves fewer than `k`, the best of the capped ones fill the rest (0: no cap).
 */
export function capPerSource<T extends [string, { source: string }]>(
  ranked: T[],
  k: number,
  perSource: number,
): T[] {
  if (perSource <= 0) return ranked.slice(0, k);
  const picked = new Set<T>();
  const count = new Map<string, number>();
  for (const entry of ranked) {
    if (picked.size === k) break;
    const n = count.get(entry[1].source) ?? 0;
    if (n >= perSource) continue;
    count.set(entry[1].source, n + 1);
    picked.add(entry);
  }
  for (const entry of ranked) {
    if (picked.size === k) break;
    picked.add(entry);
  }
  return ranked.filter((e) => picked.has(e));
}
