import { createHash } from 'node:crypto';
import type { ScrapeOptions } from '@wds/contracts';
import type { JobRow, PageCandidate } from '@wds/jobs';

/** What a batch keeps in its job's `options`: the scrape options of every page (the URLs are its pages). */
export interface BatchOptions {
  scrapeOptions: ScrapeOptions;
}

export function storedOptions(job: Pick<JobRow, 'options'>): BatchOptions {
  return job.options as unknown as BatchOptions;
}

/** Longer URLs are keyed by their hash: the key is part of a B-tree primary key (entries max ~2.7 kB). */
const MAX_PLAIN_KEY = 1000;

/**
 * The batch's pages: one per distinct URL text (a URL listed twice, or appended again, is scraped
 * and charged once), in the order given.
 */
export function pageCandidates(urls: readonly string[]): PageCandidate[] {
  const seen = new Set<string>();
  const out: PageCandidate[] = [];
  for (const url of urls) {
    const urlKey =
      url.length <= MAX_PLAIN_KEY ? url : `sha256:${createHash('sha256').update(url).digest('hex')}`;
    if (seen.has(urlKey)) continue;
    seen.add(urlKey);
    out.push({ urlKey, url, depth: 0 });
  }
  return out;
}

/** JSON with sorted object keys, to compare option sets regardless of key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
