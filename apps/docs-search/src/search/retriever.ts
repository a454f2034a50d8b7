import type { Passage } from '../corpus/passage';
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
 * Prior of a passage by what kind of document it is in. Users ask how to use the platform; the
 * user-facing reference (the API spec, user docs, READMEs of the services and charts, the OpenAPI
 * document) answers that, while decision records, benchmark logs and library internals mention
 * the same words for other reasons. They stay searchable, one step down.
 */
export function sourcePrior(source: string): number {
  return /^(docs\/adr\/|docs\/benchmarks\.md$|libs\/)/.test(source) ? INTERNAL_PRIOR : 1;
}
const INTERNAL_PRIOR = 0.6;
/**
 * The vector ranking's share in the fusion: MiniLM finds paraphrases the lexemes miss, but on this
 * technical reference (option names, status codes) the lexical ranking is the more precise of the
 * two (docs/benchmarks.md, Docs search).
 */
const VECTOR_WEIGHT = 0.75;

export interface Retrieved {
  passage: Passage;
  score: number;
  /** The rankings that found it. */
  via: ('text' | 'vector')[];
}

/**
 * Hybrid retrieval: PostgreSQL full text (lexemes, headings weighted) and, when the embedding model
 * is loaded, exact cosine similarity over every stored vector, fused by reciprocal rank.
 */
export class Retriever {
  private vectors: { ref: string; embedding: Float32Array }[] = [];

  constructor(
    private readonly store: PassageStore,
    readonly embedder: Embedder | undefined,
  ) {}

  get hybrid(): boolean {
    return Boolean(this.embedder) && this.vectors.length > 0;
  }

  /** Reloads the vectors after the index changed. */
  async refresh(): Promise<void> {
    this.vectors = this.embedder ? await this.store.vectors(this.embedder.modelId) : [];
  }

  async retrieve(question: string, k: number): Promise<Retrieved[]> {
    const [text, vector] = await Promise.all([
      this.store.searchText(question, POOL),
      this.vectorRanking(question),
    ]);
    const fused = new Map<string, { score: number; via: Set<'text' | 'vector'> }>();
    const add = (refs: string[], via: 'text' | 'vector') =>
      refs.forEach((ref, i) => {
        const entry = fused.get(ref) ?? { score: 0, via: new Set() };
        entry.score += (via === 'vector' ? VECTOR_WEIGHT : 1) / (RRF_K + i + 1);
        entry.via.add(via);
        fused.set(ref, entry);
      });
    add(
      text.map((t) => t.ref),
      'text',
    );
    add(vector, 'vector');
    const top = [...fused.entries()]
      .sort((a, b) => b[1].score - a[1].score || a[0].localeCompare(b[0]))
      .slice(0, k);
    const passages = await this.store.get(top.map(([ref]) => ref));
    return top.flatMap(([ref, e]) => {
      const passage = passages.get(ref);
      return passage ? [{ passage, score: e.score, via: [...e.via] }] : [];
    });
  }

  private async vectorRanking(question: string): Promise<string[]> {
    if (!this.embedder || !this.vectors.length) return [];
    const [q] = await this.embedder.embed([question]);
    return this.vectors
      .map((v) => ({ ref: v.ref, s: dot(q, v.embedding) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, POOL)
      .map((v) => v.ref);
  }
}
