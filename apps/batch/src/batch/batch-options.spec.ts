import { canonicalJson, pageCandidates } from './batch-options';

describe('batch pages', () => {
  it('keeps one page per distinct URL, in the order given, at depth 0', () => {
    const pages = pageCandidates([
      'http://a.test/1',
      'http://a.test/2',
      'http://a.test/1',
      'http://a.test/1#x',
    ]);
    expect(pages).toEqual([
      { urlKey: 'http://a.test/1', url: 'http://a.test/1', depth: 0 },
      { urlKey: 'http://a.test/2', url: 'http://a.test/2', depth: 0 },
      { urlKey: 'http://a.test/1#x', url: 'http://a.test/1#x', depth: 0 },
    ]);
  });

  it('keys a long URL by its hash, so the key fits the primary-key index', () => {
    const long = `http://a.test/${'x'.repeat(5000)}`;
    const [page] = pageCandidates([long, long]);
    expect(page.url).toBe(long);
    expect(page.urlKey).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(pageCandidates([long, `${long}y`])).toHaveLength(2);
  });
});

describe('canonicalJson', () => {
  it('ignores key order at every level but not array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe(
      canonicalJson({ a: { c: 'x', d: [1, 2] }, b: 1 }),
    );
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
