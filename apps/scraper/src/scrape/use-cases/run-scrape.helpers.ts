import {
  findFormat,
  ServiceError,
  type Document,
  type ScrapeCacheEntryRef,
  type ScrapeRunRequest,
} from '@wds/contracts';

/** Names the cache entry a delivered document is (see `ScrapeRunReply.cached`). */
export function entryRef(
  key: string,
  e: { fetchedAt: Date; expiresAt: Date; contentCredits: number },
): ScrapeCacheEntryRef {
  return {
    key,
    fetchedAt: e.fetchedAt.getTime(),
    expiresAt: e.expiresAt.getTime(),
    contentCredits: e.contentCredits,
  };
}

/** Rejects with SCRAPE_TIMEOUT when `work` does not finish within `ms` (work that ignores it is abandoned). */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out while processing the page')),
      Math.max(0, ms),
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Warnings of the page and of its formats, as the one `warning` string of the document. */
export function joinWarnings(...warnings: (string | undefined)[]): string | undefined {
  const all = warnings.filter((w): w is string => !!w);
  return all.length > 0 ? all.join(' ') : undefined;
}

/** Drops markdown produced only for change tracking or the LLM formats (the caller did not ask for it). */
export function withRequestedFormats(o: ScrapeRunRequest['options'], document: Document): Document {
  if (document.markdown === undefined || findFormat(o.formats, 'markdown')) return document;
  const { markdown: _unrequested, ...rest } = document;
  return rest;
}
