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
  embedded: number;
  ms: number;
}

/** What a passage's row is built from; a change of any part (or of the embedding model) re-indexes it. */
export function contentHash(p: Passage, modelId: string | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify([p.source, p.title, p.body, p.lineStart, p.lineEnd, modelId ?? 'text-only']))
    .digest('hex');
}

/** The text a passage is embedded from: its heading trail, then its body. */
export function embeddingText(p: Passage): string {
  return `${p.title}\n${p.body}`;
}

/**
 * Brings the stored index in line with `passages`: rows whose content hash is unchanged are left
 * alone, changed and new rows are (re-)embedded and written, rows no longer published are deleted,
 * all in one transaction under the index lock.
 */
export async function buildIndex(
  store: PassageStore,
  passages: Passage[],
  embedder: Embedder | undefined,
): Promise<IndexStats> {
  const t0 = Date.now();
  const unique = new Map<string, Passage>();
  for (const p of passages) if (!unique.has(p.ref)) unique.set(p.ref, p);
  return store.withIndexLock(async (q) => {
    const stored = await store.hashes(q);
    const changed: StoredPassage[] = [];
    let unchanged = 0;
    let added = 0;
    for (const p of unique.values()) {
      const hash = contentHash(p, embedder?.modelId);
      const before = stored.get(p.ref);
      if (before === hash) unchanged++;
      else {
        if (before === undefined) added++;
        changed.push({ ...p, contentHash: hash });
      }
    }
    if (embedder && changed.length) {
      const vectors = await embedder.embed(changed.map(embeddingText));
      changed.forEach((p, i) => (p.embedding = vectors[i]));
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
      embedded: embedder ? changed.length : 0,
      ms: Date.now() - t0,
    };
  });
}
