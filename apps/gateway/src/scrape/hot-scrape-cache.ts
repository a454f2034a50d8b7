import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
import { PER_REQUEST_METADATA_KEYS, type Document, type ScrapeCacheEntryRef } from '@wds/contracts';

/** Larger documents are not copied: serialising and compressing them is not worth a hot copy. */
export const HOT_COPY_MAX_JSON_BYTES = 512 * 1024;
/** Up to this size a copy is compressed at once (well under a millisecond); larger ones off the event loop. */
const COMPRESS_INLINE_MAX_BYTES = 64 * 1024;

const gzipAsync = promisify(gzip);

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
   * A large copy is usable once compressed off the event loop; until then hits take the ordinary path.
   */
  async remember(ref: ScrapeCacheEntryRef, document: Document): Promise<void> {
    if (!this.enabled || !this.isNewer(ref)) return;
    const metadata: Record<string, unknown> = { ...document.metadata };
    for (const k of PER_REQUEST_METADATA_KEYS) delete metadata[k];
    const { metadata: _metadata, ...rest } = document;
    const restJson = JSON.stringify(rest);
    const upToMetadata = `${restJson.slice(0, -1)}${restJson === '{}' ? '' : ','}"metadata":`;
    const json = Buffer.from(`${upToMetadata}${JSON.stringify(metadata)}}`);
    // At most 1/16 of the budget each, so a few large pages cannot flush it.
    if (json.length > Math.min(HOT_COPY_MAX_JSON_BYTES, this.maxBytes / 16)) return;
    const gz = json.length <= COMPRESS_INLINE_MAX_BYTES ? gzipSync(json) : await gzipAsync(json);
    const documentGz = gz.toString('base64');
    // Another reply may have brought a newer copy meanwhile.
    if (!this.isNewer(ref)) return;
    const current = this.held.get(ref.key);
    if (current) this.forget(ref.key, current.fetchedAt);
    const answerPrefix = `{"success":true,"data":${upToMetadata}`;
    const bytes = json.length + documentGz.length + answerPrefix.length;
    const base = { ...rest, metadata } as Document;
    this.held.set(ref.key, { ...ref, document: base, documentGz, answerPrefix, bytes });
    this.bytes += bytes;
    for (const [oldest, e] of this.held) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest, e.fetchedAt);
    }
  }

  private isNewer(ref: ScrapeCacheEntryRef): boolean {
    const current = this.held.get(ref.key);
    return !current || current.fetchedAt < ref.fetchedAt;
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
