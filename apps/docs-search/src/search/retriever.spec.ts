import { blendRanks, capPerSource, closest } from './retriever';

const entry = (ref: string): [string, { source: string }] => [ref, { source: ref.split('#')[0] }];

describe('capPerSource', () => {
  const ranked = ['openapi#a', 'openapi#b', 'openapi#c', 'docs/api.md#x', 'openapi#d', 'README.md#y'].map(
    entry,
  );

  it('keeps at most two passages of one source while others are left, in rank order', () => {
    expect(capPerSource(ranked, 3, 2).map(([ref]) => ref)).toEqual([
      'openapi#a',
      'openapi#b',
      'docs/api.md#x',
    ]);
    expect(capPerSource(ranked, 4, 2).map(([ref]) => ref)).toEqual([
      'openapi#a',
      'openapi#b',
      'docs/api.md#x',
      'README.md#y',
    ]);
  });

  it('fills with the best capped passages when nothing else is left, and 0 means no cap', () => {
    expect(capPerSource(ranked, 6, 2).map(([ref]) => ref)).toEqual(ranked.map(([ref]) => ref));
    expect(capPerSource(ranked.slice(0, 3), 3, 2)).toHaveLength(3);
    expect(capPerSource(ranked, 3, 0).map(([ref]) => ref)).toEqual(['openapi#a', 'openapi#b', 'openapi#c']);
  });
});

describe('closest', () => {
  it('is the best cosine of the question with one of the vectors laid back to back', () => {
    const q = Float32Array.from([1, 0, 0]);
    const three = Float32Array.from([0, 1, 0, 0.6, 0.8, 0, -1, 0, 0]);
    expect(closest(q, three)).toBeCloseTo(0.6);
    expect(closest(q, Float32Array.from([-1, 0, 0]))).toBe(-1);
    expect(closest(q, new Float32Array(0))).toBe(-Infinity);
  });
});

describe('blendRanks', () => {
  const order = (scores: number[], weight = 1, k = 60) => blendRanks(scores, weight, k).map((e) => e.index);

  it('moves an entry the second scores put first above one place it held in the list', () => {
    // Entry 2 is first by score: 1/62 + 1/60 passes entry 1 (1/61 + 1/62), not entry 0 (1/60 + 1/61).
    expect(order([0.5, 0.4, 0.9])).toEqual([0, 2, 1]);
    expect(order([0.1, 0.9, 0.5])).toEqual([1, 0, 2]);
  });

  it('keeps the list order when the scores agree with it or weigh nothing', () => {
    expect(order([0.9, 0.8, 0.7, 0.6])).toEqual([0, 1, 2, 3]);
    expect(order([0.1, 0.2, 0.3, 0.9], 0)).toEqual([0, 1, 2, 3]);
  });

  it('lets heavier second scores reorder further, and sums both reciprocal ranks', () => {
    // Reversed scores at weight 1: first and last tie (list order wins), so do the middle two.
    expect(order([0.1, 0.2, 0.3, 0.9], 1)).toEqual([0, 3, 1, 2]);
    expect(order([0.1, 0.2, 0.3, 0.9], 3)[0]).toBe(3);
    const [first] = blendRanks([0.2, 0.1], 1, 60);
    expect(first).toEqual({ index: 0, score: 1 / 60 + 1 / 60 });
    expect(blendRanks([], 1, 60)).toEqual([]);
  });
});
