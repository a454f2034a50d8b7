import { WriteBatcher } from './write-batcher';

describe('WriteBatcher', () => {
  it('writes a lone item at once and what arrives meanwhile in the next write, up to max', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const batcher = new WriteBatcher<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    }, 3);
    const first = batcher.add(1);
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual([[1]]);
    const later = [2, 3, 4, 5].map((n) => batcher.add(n));
    release();
    await Promise.all([first, ...later]);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('items of one tick share a write; a failed write rejects exactly its own callers', async () => {
    const writes: string[][] = [];
    const batcher = new WriteBatcher<string>(async (items) => {
      writes.push(items);
      if (items.includes('bad')) throw new Error('write failed');
    }, 10);
    const results = await Promise.allSettled([batcher.add('a'), batcher.add('bad')]);
    expect(writes).toEqual([['a', 'bad']]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(batcher.add('c')).resolves.toBeUndefined();
    expect(writes.at(-1)).toEqual(['c']);
  });
});
