import { describeBytes, decodeJson, subjectMatches } from './codec';

describe('subjectMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.b.c', 'a.b', false],
    ['a.*.c', 'a.x.c', true],
    ['a.*', 'a.x.c', false],
    ['a.>', 'a.x.c', true],
    ['a.>', 'a', false],
    ['a.b', 'a.c', false],
  ])('%s vs %s → %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe('byte helpers', () => {
  it('decodes JSON and reports garbage', () => {
    expect(decodeJson(new TextEncoder().encode('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(decodeJson(new TextEncoder().encode('{nope')).ok).toBe(false);
  });

  it('keeps text as text and binary as base64', () => {
    expect(describeBytes(new TextEncoder().encode('hé'))).toEqual({ payload: 'hé', payloadEncoding: 'utf8' });
    expect(describeBytes(new Uint8Array([0xff, 0xfe]))).toEqual({
      payload: '//4=',
      payloadEncoding: 'base64',
    });
  });
});
