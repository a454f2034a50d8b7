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

  it('hands each caller its own result, in item order', async () => {
    const batcher = new WriteBatcher<number, string>(async (items) => items.map((n) => `r${n}`), 10);
    await expect(Promise.all([batcher.add(1), batcher.add(2), batcher.add(3)])).resolves.toEqual([
      'r1',
      'r2',
      'r3',
    ]);
  });

  it('with isolateFailures, a failed batch is retried item by item so only the bad item fails', async () => {
    const writes: string[][] = [];
    const batcher = new WriteBatcher<string, string>(
      async (items) => {
        writes.push(items);
        if (items.includes('bad')) throw new Error('bad item');
        return items.map((i) => i.toUpperCase());
      },
      { max: 10, isolateFailures: true },
    );
    const results = await Promise.allSettled([batcher.add('a'), batcher.add('bad'), batcher.add('c')]);
    expect(writes).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('bad item') },
      { status: 'fulfilled', value: 'C' },
    ]);
  });

  it('caps a write by total weight (at least one item) and reports when it runs idle', async () => {
    const writes: number[][] = [];
    let idle = 0;
    const batcher = new WriteBatcher<number>(
      async (items) => {
        writes.push(items);
      },
      { max: 10, maxWeight: 10, weight: (n) => n, onIdle: () => idle++ },
    );
    await Promise.all([4, 5, 3, 20, 1].map((n) => batcher.add(n)));
    expect(writes).toEqual([[4, 5], [3], [20], [1]]);
    expect(idle).toBe(1);
    expect(batcher.backlog).toBe(0);
  });
});
