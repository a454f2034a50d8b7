import { gzipSync } from 'node:zlib';
import { CacheStore, type CacheEntry, type CacheLookup, type CachePut } from './cache-store';
import { MemoryFrontedCacheStore } from './memory-cache-store';

/** The shared store's contract in memory, counting lookups that reach it. */
class SharedStore extends CacheStore {
  readonly rows = new Map<string, CacheEntry>();
  lookups = 0;
  constructor(private readonly now: () => number) {
    super();
  }
  async find(l: CacheLookup): Promise<CacheEntry | undefined> {
    this.lookups++;
    const e = this.rows.get(l.key);
    const now = this.now();
    if (!e || e.expiresAt.getTime() <= now) return undefined;
    if (l.maxAgeMs !== undefined && e.fetchedAt.getTime() <= now - l.maxAgeMs) return undefined;
    return e.fetchedAt.getTime() <= now - (l.minAgeMs ?? 0) ? e : undefined;
  }
  async put(e: CachePut) {
    const fetched = e.fetchedAt?.getTime() ?? this.now();
    this.rows.set(e.key, {
      documentGz: e.documentGz,
      contentCredits: e.contentCredits,
      fetchedAt: new Date(fetched),
      expiresAt: new Date(fetched + e.retainMs),
    });
  }
  async purgeExpired(): Promise<number> {
    return 0;
  }
}

const doc = (markdown: string) => gzipSync(Buffer.from(JSON.stringify({ markdown })));

describe('MemoryFrontedCacheStore', () => {
  let t: number;
  let shared: SharedStore;
  beforeEach(() => {
    t = 1_000_000;
    shared = new SharedStore(() => t);
  });

  it('answers repeated hits from memory, decoded, within maxAge only', async () => {
    const store = new MemoryFrontedCacheStore(shared, 1 << 20, () => t);
    await store.put({
      key: 'k',
      url: 'https://a.test/',
      documentGz: doc('# A'),
      contentCredits: 1,
      retainMs: 60_000,
    });
    const hit = await store.find({ key: 'k', maxAgeMs: 10_000 });
    expect(hit?.document).toEqual({ markdown: '# A' });
    expect(shared.lookups).toBe(0);

    t += 20_000;
    // Too old for this lookup: the shared store decides (another replica may hold a fresher copy).
    expect(await store.find({ key: 'k', maxAgeMs: 10_000 })).toBeUndefined();
    expect(shared.lookups).toBe(1);
    expect((await store.find({ key: 'k', maxAgeMs: 30_000 }))?.contentCredits).toBe(1);
    expect(await store.find({ key: 'k', minAgeMs: 30_000 })).toBeUndefined();

    t += 60_000;
    expect(await store.find({ key: 'k' })).toBeUndefined();
  });

  it('holds a compact copy of a gzip that is a slice of a larger buffer (as zlib returns them)', async () => {
    const store = new MemoryFrontedCacheStore(shared, 1 << 20, () => t);
    const gz = doc('# small');
    const slab = Buffer.alloc(16 * 1024);
    gz.copy(slab, 100);
    const slice = slab.subarray(100, 100 + gz.length);
    await store.put({
      key: 'k',
      url: 'https://a.test/',
      documentGz: slice,
      contentCredits: 1,
      retainMs: 60_000,
    });
    const held = await store.find({ key: 'k' });
    expect(held?.document).toEqual({ markdown: '# small' });
    expect(held?.documentGz.equals(gz)).toBe(true);
    expect(held?.documentGz.buffer.byteLength).toBeLessThan(2048);
  });

  it('keeps what a shared hit returned and evicts the least recently used beyond its budget', async () => {
    const gz = doc('x'.repeat(2000));
    const budget = 3 * (gz.length + 2000 + 20);
    const store = new MemoryFrontedCacheStore(shared, budget, () => t);
    for (const key of ['a', 'b', 'c', 'd'])
      await shared.put({ key, url: 'https://a.test/', documentGz: gz, contentCredits: 1, retainMs: 60_000 });
    for (const key of ['a', 'b', 'c']) await store.find({ key });
    await store.find({ key: 'a' }); // a is now the most recent; b the least
    await store.find({ key: 'd' });
    shared.lookups = 0;
    await store.find({ key: 'a' });
    await store.find({ key: 'd' });
    expect(shared.lookups).toBe(0);
    await store.find({ key: 'b' });
    expect(shared.lookups).toBe(1);
  });

  it('gives the memory and the shared copy of an entry the same fetch time', async () => {
    const store = new MemoryFrontedCacheStore(shared, 1 << 20, () => t);
    await store.put({
      key: 'k',
      url: 'https://a.test/',
      contentCredits: 1,
      retainMs: 60_000,
      documentGz: doc('# A'),
    });
    expect(shared.rows.get('k')?.fetchedAt.getTime()).toBe(t);
    expect((await store.find({ key: 'k' }))?.fetchedAt.getTime()).toBe(t);
  });
});
