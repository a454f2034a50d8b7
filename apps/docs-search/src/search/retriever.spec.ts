import { capPerSource, closest } from './retriever';

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
