import { ScrapeRequest, scrapeCacheKey } from '@wds/contracts';
import { cachePolicyOf, mayStore } from './cache-policy';

const options = (extra: Record<string, unknown> = {}) =>
  ScrapeRequest.parse({ url: 'https://example.com/a', ...extra });

describe('cache policy', () => {
  it('reads through the cache and writes fresh pages by default, under the request cache key', () => {
    const o = options();
    expect(cachePolicyOf(o, false)).toEqual({
      key: scrapeCacheKey(o),
      read: { mode: 'read-through', maxAgeMs: o.maxAge },
      write: true,
    });
  });

  it('answers lockdown and minAge from the cache only', () => {
    const lockdown = options({ lockdown: true, maxAge: 60_000 });
    // Lockdown counts as zero data retention for everything else: the caller passes it so.
    expect(cachePolicyOf(lockdown, true)).toMatchObject({
      read: { mode: 'cache-only', lockdown: true, maxAgeMs: 60_000, minAgeMs: undefined },
      write: false,
    });
    expect(cachePolicyOf(options({ minAge: 5000 }), false).read).toEqual({
      mode: 'cache-only',
      lockdown: false,
      maxAgeMs: undefined,
      minAgeMs: 5000,
    });
  });

  it('fetches without reading under zero data retention, caller headers, actions or maxAge 0', () => {
    expect(cachePolicyOf(options(), true)).toMatchObject({ read: { mode: 'fetch' }, write: false });
    expect(cachePolicyOf(options({ headers: { 'x-a': '1' } }), false)).toMatchObject({
      read: { mode: 'fetch' },
      write: false,
    });
    expect(cachePolicyOf(options({ actions: [{ type: 'wait', milliseconds: 10 }] }), false).read).toEqual({
      mode: 'fetch',
    });
    // maxAge 0 still refreshes the cache for others.
    expect(cachePolicyOf(options({ maxAge: 0 }), false)).toMatchObject({ read: { mode: 'fetch' }, write: true });
  });

  it('does not write with storeInCache false or media formats', () => {
    expect(cachePolicyOf(options({ storeInCache: false }), false).write).toBe(false);
    expect(cachePolicyOf(options({ formats: ['markdown', 'audio'] }), false).write).toBe(false);
  });

  it('stores a fetched page only when it succeeded and carries no screenshot', () => {
    const policy = cachePolicyOf(options(), false);
    expect(mayStore(policy, 200, false)).toBe(true);
    expect(mayStore(policy, 404, false)).toBe(false);
    expect(mayStore(policy, 302, false)).toBe(false);
    expect(mayStore(policy, 200, true)).toBe(false);
    expect(mayStore(cachePolicyOf(options(), true), 200, false)).toBe(false);
  });
});
