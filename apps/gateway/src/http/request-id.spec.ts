import { resolveRequestId } from './request-id';

describe('resolveRequestId', () => {
  it('keeps a safe client id', () => {
    expect(resolveRequestId('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    expect(resolveRequestId(['first', 'second'])).toBe('first');
  });

  it('replaces unsafe or missing ids with a uuid', () => {
    const uuid = /^[0-9a-f-]{36}$/;
    expect(resolveRequestId(undefined)).toMatch(uuid);
    expect(resolveRequestId('has space')).toMatch(uuid);
    expect(resolveRequestId('line\nbreak')).toMatch(uuid);
    expect(resolveRequestId('x'.repeat(129))).toMatch(uuid);
  });
});
