import { createHash } from 'node:crypto';
import { sentences } from '../answer/extractive';
import type { Passage } from '../corpus/passage';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embedder';
import type { PassageStore, StoredPassage } from './passage-store';

export interface IndexStats {
  passages: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  ms: number;
}

/** What a passage's row is built from; a change of any part re-indexes it (and drops its vector). */
export function contentHash(p: Passage): string {
  return createHash('sha256')
    .update(JSON.stringify([p.source, p.title, p.body, p.lineStart, p.lineEnd]))
    .digest('hex');
}

/** The text a passage is embedded from: its heading trail, then its body. */
export function embeddingText(p: Passage): string {
  return `${p.title}\n${p.body}`;
}

/**
 * Characters of a sentence embedded: a table row or list item can run long, and the closest
 * sentence is meant to be one statement.
 */
const SENTENCE_CHARS = 400;

/**
 * The texts a passage's sentence vectors are made from: its sentences, list items and table rows
 * (as the answer's post-check reads them), each on its own.
 */
export function sentenceTexts(p: Pick<Passage, 'body'>): string[] {
  return sentences(p.body).map((s) => s.slice(0, SENTENCE_CHARS));
}

/**
 * Vectors of `texts` in their order, sent to the model shortest first: a run of the model pads
 * its texts to the longest, so neighbours of like length waste least.
 */
async function embedAll(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
  const vectors = await embedder.embed(order.map((i) => texts[i]));
  const out: Float32Array[] = new Array(texts.length);
  order.forEach((i, k) => (out[i] = vectors[k]));
  return out;
}

/**
 * Brings the stored text index in line with `passages` (fast: no model involved): rows whose
 * content hash is unchanged are left alone with their vectors, changed and new rows are written
 * without a vector, rows no longer published are deleted, in one transaction under the index lock.
 */
export async function syncPassages(store: PassageStore, passages: Passage[]): Promise<IndexStats> {
  const t0 = Date.now();
  const unique = new Map<string, Passage>();
  for (const p of passages) if (!unique.has(p.ref)) unique.set(p.ref, p);
  return store.withIndexLock(async (q) => {
    const stored = await store.hashes(q);
    const changed: StoredPassage[] = [];
    let unchanged = 0;
    let added = 0;
    for (const p of unique.values()) {
      const hash = contentHash(p);
      const before = stored.get(p.ref);
      if (before === hash) unchanged++;
      else {
        if (before === undefined) added++;
        changed.push({ ...p, contentHash: hash });
      }
    }
    const removed = [...stored.keys()].filter((ref) => !unique.has(ref));
    await store.upsert(q, changed);
    await store.delete(q, removed);
    return {
      passages: unique.size,
      added,
      updated: changed.length - added,
      removed: removed.length,
      unchanged,
      ms: Date.now() - t0,
    };
  });
}

/**
 * Computes the vectors that are missing (new or changed rows, or made by another model): each
 * row's own with its token vectors (`Embedder.embedPassages`) and its sentences'
 * (`sentenceTexts`), a batch at a time in the embedder's thread, so the process keeps answering
 * meanwhile (questions go before queued index work there); a row whose text changed in between
 * keeps no stale vector. Returns how many rows got one. `shouldStop` ends the work between batches.
 */
export async function embedMissing(
  store: PassageStore,
  embedder: Embedder,
  opts: { batch?: number; shouldStop?: () => boolean } = {},
): Promise<number> {
  let done = 0;
  for (;;) {
    if (opts.shouldStop?.()) return done;
    const rows = await store.withoutVector(embedder.modelId, opts.batch ?? 16);
    if (!rows.length) return done;
    const sentencesOf = rows.map(sentenceTexts);
    const [own, sentenceVectors] = await Promise.all([
      embedder.embedPassages(rows.map(embeddingText)),
      embedAll(embedder, sentencesOf.flat()),
    ]);
    let next = 0;
    await store.setVectors(
      rows.map((r, i) => {
        const flat = new Float32Array(sentencesOf[i].length * EMBEDDING_DIMENSIONS);
        for (let k = 0; k < sentencesOf[i].length; k++)
          flat.set(sentenceVectors[next++], k * EMBEDDING_DIMENSIONS);
        return {
          ref: r.ref,
          contentHash: r.contentHash,
          embedding: own.vectors[i],
          sentences: flat,
          tokens: own.tokens[i],
        };
      }),
      embedder.modelId,
    );
    done += rows.length;
  }
}

/** Text rows, then every missing vector: the whole index at once (tests, the benchmark). */
export async function buildIndex(
  store: PassageStore,
  passages: Passage[],
  embedder: Embedder | undefined,
): Promise<IndexStats & { embedded: number }> {
  const stats = await syncPassages(store, passages);
  const t0 = Date.now();
  const embedded = embedder ? await embedMissing(store, embedder) : 0;
  return { ...stats, embedded, ms: stats.ms + Date.now() - t0 };
}
