import { gzipSync } from 'node:zlib';
import { PER_REQUEST_METADATA_KEYS, type Document, type ScrapeCacheEntryRef } from '@wds/contracts';

/** Default budget of the hot copies one gateway keeps (JSON bytes of the documents). */
export const HOT_CACHE_DEFAULT_MB = 64;

export interface HotEntry {
  key: string;
  fetchedAt: number;
  expiresAt: number;
  contentCredits: number;
  /** The cache entry's document: without any request's metadata (scrapeId, cacheState, ...). */
  document: Document;
  /** Base64 of its gzip-compressed JSON, as a hit's job row stores it (compressed once per entry). */
  documentGz: string;
  /**
   * The answer's JSON up to the document's metadata value: `{"success":true,"data":{...,"metadata":`.
   * A hit appends its metadata and `}}`, so the large document is serialised once per entry.
   */
  answerPrefix: string;
  bytes: number;
}

/**
 * A bounded in-memory LRU of scraper cache entries this gateway has seen in scrape replies (the
 * reply names the entry its document came from). It lets the gateway answer a repeated hit
 * without a scraper round trip; every such hit is still recorded as a job (`HitRecorder`) before
 * the answer goes out. It is a copy, never a source of truth: an entry is used only within the
 * request's maxAge and the entry's own expiry, exactly as the scraper's cache would use it, and a
 * newer fetch of the key replaces it.
 */
export class HotScrapeCache {
  private readonly held = new Map<string, HotEntry>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The entry of `key` fetched less than `maxAgeMs` ago and not expired, as most recently used. */
  get(key: string, maxAgeMs: number): HotEntry | undefined {
    const e = this.held.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (e.expiresAt <= now) {
      this.forget(key, e.fetchedAt);
      return undefined;
    }
    if (e.fetchedAt <= now - maxAgeMs) return undefined;
    this.held.delete(key);
    this.held.set(key, e);
    return e;
  }

  /**
   * Keeps the entry a reply's document came from (a newer fetch of the same key replaces an older
   * one; never the reverse). `document` is the reply's, whose request metadata is removed here.
   */
  remember(ref: ScrapeCacheEntryRef, document: Document): void {
    if (!this.enabled) return;
    const current = this.held.get(ref.key);
    if (current && current.fetchedAt >= ref.fetchedAt) return;
    const metadata: Record<string, unknown> = { ...document.metadata };
    for (const k of PER_REQUEST_METADATA_KEYS) delete metadata[k];
    const base: Document = { ...document, metadata: metadata as Document['metadata'] };
    const json = Buffer.from(JSON.stringify(base));
    // One document may take at most 1/16 of the budget, so a few large pages cannot flush it.
    if (json.length > this.maxBytes / 16) return;
    const documentGz = gzipSync(json).toString('base64');
    const { metadata: _metadata, ...rest } = base;
    const restJson = JSON.stringify(rest);
    const answerPrefix = `{"success":true,"data":${restJson.slice(0, -1)}${restJson === '{}' ? '' : ','}"metadata":`;
    const bytes = json.length + documentGz.length + answerPrefix.length;
    if (current) this.forget(ref.key, current.fetchedAt);
    this.held.set(ref.key, { ...ref, document: base, documentGz, answerPrefix, bytes });
    this.bytes += bytes;
    for (const [oldest, e] of this.held) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest, e.fetchedAt);
    }
  }

  /** Drops the copy of `key` if it is still the one fetched at `fetchedAt`. */
  forget(key: string, fetchedAt: number): void {
    const e = this.held.get(key);
    if (!e || e.fetchedAt !== fetchedAt) return;
    this.held.delete(key);
    this.bytes -= e.bytes;
  }

  /** Documents held and their bytes (JSON, compressed copy, answer prefix). */
  size(): { entries: number; bytes: number } {
    return { entries: this.held.size, bytes: this.bytes };
  }
}
