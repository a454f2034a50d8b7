import type { Document } from '@wds/contracts';
import { HotScrapeCache } from './hot-scrape-cache';

const doc = (markdown: string, scrapeId = 'job-1'): Document => ({
  markdown,
  metadata: {
    title: 't',
    statusCode: 200,
    scrapeId,
    cacheState: 'miss',
    creditsUsed: 1,
  } as Document['metadata'],
});
const ref = (key: string, fetchedAt: number, expiresAt = fetchedAt + 60_000) => ({
  key,
  fetchedAt,
  expiresAt,
  contentCredits: 1,
});

describe('HotScrapeCache', () => {
  let t: number;
  beforeEach(() => {
    t = 1_000_000;
  });

  it('keeps the entry without request metadata and serves it within maxAge and expiry only', async () => {
    const cache = new HotScrapeCache(1 << 20, () => t);
    await cache.remember(ref('k', t, t + 30_000), doc('# A'));
    expect(cache.get('k', 10_000)?.document).toEqual({
      markdown: '# A',
      metadata: { title: 't', statusCode: 200 },
    });
    t += 10_000;
    expect(cache.get('k', 10_000)).toBeUndefined(); // too old for this request
    expect(cache.get('k', 20_000)).toBeDefined();
    t += 20_000;
    expect(cache.get('k', 60_000)).toBeUndefined(); // expired: dropped
    expect(cache.size().entries).toBe(0);
  });

  it('a newer fetch replaces an older one, never the reverse; forget drops only the named fetch', async () => {
    const cache = new HotScrapeCache(1 << 20, () => t);
    await cache.remember(ref('k', t), doc('# old'));
    await cache.remember(ref('k', t + 5), doc('# new'));
    await cache.remember(ref('k', t), doc('# old again'));
    expect(cache.get('k', 60_000)?.document.markdown).toBe('# new');
    cache.forget('k', t);
    expect(cache.get('k', 60_000)?.fetchedAt).toBe(t + 5);
    cache.forget('k', t + 5);
    expect(cache.get('k', 60_000)).toBeUndefined();
    expect(cache.size()).toEqual({ entries: 0, bytes: 0 });
  });

  it('evicts the least recently used beyond its budget and skips documents over 1/16 of it', async () => {
    // What one entry costs (JSON, compressed copy, answer prefix), measured on a lone entry.
    const probe = new HotScrapeCache(1 << 20, () => t);
    await probe.remember(ref('p', t), doc('x'.repeat(1000)));
    const one = probe.size().bytes;
    const cache = new HotScrapeCache(one * 16, () => t);
    for (let i = 0; i < 16; i++) await cache.remember(ref(`k${i}`, t), doc('x'.repeat(1000)));
    expect(cache.size().entries).toBe(16);
    cache.get('k0', 60_000); // k0 is now the most recent; k1 the least
    await cache.remember(ref('k16', t), doc('x'.repeat(1000)));
    expect(cache.get('k1', 60_000)).toBeUndefined();
    expect(cache.get('k0', 60_000)).toBeDefined();
    expect(cache.size().bytes).toBeLessThanOrEqual(one * 16);
    await cache.remember(ref('big', t), doc('x'.repeat(20 * one)));
    expect(cache.get('big', 60_000)).toBeUndefined();
  });

  it('prepares the answer up to the metadata, so a hit only appends its own metadata', async () => {
    const cache = new HotScrapeCache(1 << 20, () => t);
    await cache.remember(ref('k', t), { ...doc('# A'), links: ['https://a.test/'] });
    const e = cache.get('k', 60_000)!;
    expect(JSON.parse(`${e.answerPrefix}{"scrapeId":"j"}}}`)).toEqual({
      success: true,
      data: { markdown: '# A', links: ['https://a.test/'], metadata: { scrapeId: 'j' } },
    });
    await cache.remember(ref('m', t), { metadata: { title: 'only metadata' } } as Document);
    expect(JSON.parse(`${cache.get('m', 60_000)!.answerPrefix}{}}}`)).toEqual({
      success: true,
      data: { metadata: {} },
    });
  });

  it('does not copy documents over 512 KB, whatever the budget; compresses large ones off the event loop', async () => {
    const cache = new HotScrapeCache(1 << 30, () => t);
    await cache.remember(ref('huge', t), doc('x'.repeat(600 * 1024)));
    expect(cache.get('huge', 60_000)).toBeUndefined();
    const pending = cache.remember(ref('large', t), doc('x'.repeat(200 * 1024)));
    expect(cache.get('large', 60_000)).toBeUndefined();
    await pending;
    expect(cache.get('large', 60_000)?.document.markdown).toHaveLength(200 * 1024);
  });

  it('holds nothing when its budget is 0', async () => {
    const cache = new HotScrapeCache(0, () => t);
    expect(cache.enabled).toBe(false);
    await cache.remember(ref('k', t), doc('# A'));
    expect(cache.get('k', 60_000)).toBeUndefined();
  });
});
