import { createHash } from 'node:crypto';
import type { Passage } from '../corpus/passage';
import type { Embedder } from './embedder';
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
 * Computes the vectors that are missing (new or changed rows, or made by another model), a batch
 * at a time in the embedder's thread, so the process keeps answering meanwhile (questions go
 * before queued index work there); a row whose text changed in between keeps no stale vector. Returns how many rows got one. `shouldStop` ends the work between batches.
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
    const vectors = await embedder.embed(rows.map(embeddingText));
    await store.setVectors(
      rows.map((r, i) => ({ ref: r.ref, contentHash: r.contentHash, embedding: vectors[i] })),
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
