import { gunzipSync } from 'node:zlib';
import { Document } from '@wds/contracts';
import { CacheStore, type CacheEntry, type CacheLookup, type CachePut } from './cache-store';

/** Default memory budget: decoded JSON bytes of the documents kept (V8 may use up to twice that). */
export const MEMORY_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Memory an entry takes besides its document and key: measured on Node 20 (100,000 entries of a
 * 1.5 KB gzip): ~720 bytes of V8 heap and ~1.3 KB of RSS per entry beyond the document's bytes.
 */
const ENTRY_OVERHEAD_BYTES = 1024;

interface Held {
  entry: CacheEntry;
  bytes: number;
}

/**
 * A bounded in-process LRU in front of the shared page cache: a hit skips the PostgreSQL round
 * trip and the gunzip + schema parse of the stored document. It holds only what the shared store
 * holds (entries are added on put and on a shared hit), each with its own fetch and expiry times,
 * so maxAge/minAge are checked exactly as the shared store checks them; an entry too old for a
 * lookup falls through to the shared store, where another replica may have stored a fresher copy.
 * Zero-data-retention scrapes never reach the cache at all (see RunScrapeUseCase).
 */
export class MemoryFrontedCacheStore extends CacheStore {
  private readonly held = new Map<string, Held>();
  private bytes = 0;

  constructor(
    private readonly shared: CacheStore,
    private readonly maxBytes = MEMORY_CACHE_MAX_BYTES,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async find(lookup: CacheLookup): Promise<CacheEntry | undefined> {
    const local = this.held.get(lookup.key);
    if (local && this.matches(local.entry, lookup)) {
      // Map order is the LRU order: re-insert as most recently used.
      this.held.delete(lookup.key);
      this.held.set(lookup.key, local);
      return this.decoded(lookup.key, local.entry);
    }
    const found = await this.shared.find(lookup);
    if (!found) return undefined;
    return this.remember(lookup.key, found);
  }

  async put(entry: CachePut): Promise<void> {
    // One fetch time for both copies, so every replica reports the same `cachedAt` for the entry.
    const fetchedAt = entry.fetchedAt ?? new Date(this.now());
    await this.shared.put({ ...entry, fetchedAt });
    // Kept compressed, decoded on its first hit: most stored pages (a crawl's) are never read back
    // here, and decoding each on put cost the scraper ~5% of its CPU in the crawl benchmark.
    this.forget(entry.key);
    if (entry.documentGz.length > this.maxBytes / 64) return;
    this.hold(
      entry.key,
      {
        documentGz: compact(entry.documentGz),
        contentCredits: entry.contentCredits,
        fetchedAt,
        expiresAt: new Date(fetchedAt.getTime() + entry.retainMs),
      },
      entry.documentGz.length,
    );
  }

  async purgeExpired(): Promise<number> {
    const now = this.now();
    for (const [key, h] of this.held) if (h.entry.expiresAt.getTime() <= now) this.forget(key);
    return this.shared.purgeExpired();
  }

  private matches(e: CacheEntry, l: CacheLookup): boolean {
    const now = this.now();
    const fetched = e.fetchedAt.getTime();
    if (e.expiresAt.getTime() <= now) return false;
    if (l.maxAgeMs !== undefined && fetched <= now - l.maxAgeMs) return false;
    return fetched <= now - (l.minAgeMs ?? 0);
  }

  /** A held entry as callers get it: decoded (an entry held since its put is decoded on first use). */
  private decoded(key: string, entry: CacheEntry): CacheEntry {
    return entry.document ? entry : this.remember(key, entry);
  }

  /** Decodes once and keeps the entry, evicting the least recently used beyond the budget. */
  private remember(key: string, found: CacheEntry): CacheEntry {
    // Large documents are not kept, and are left to the caller's asynchronous decode.
    if (found.documentGz.length > this.maxBytes / 64) return found;
    const json = gunzipSync(found.documentGz);
    const entry: CacheEntry = {
      ...found,
      document: Document.parse(JSON.parse(json.toString('utf8'))),
      jsonBytes: json.length,
    };
    this.forget(key);
    this.hold(key, entry, json.length + found.documentGz.length);
    return entry;
  }

  private hold(key: string, entry: CacheEntry, documentBytes: number): void {
    // What an entry costs besides its document (key, map slot, entry object, dates, buffer header):
    // without it, a budget of small documents let the process grow well past the budget.
    const bytes = documentBytes + ENTRY_OVERHEAD_BYTES + key.length;
    this.held.set(key, { entry, bytes });
    this.bytes += bytes;
    for (const oldest of this.held.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    this.bytes -= h.bytes;
  }
}

/**
 * The buffer itself when it owns its memory, else a copy that does: a gzip made by zlib is a slice
 * of zlib's 16 KB output buffer, so holding a 2 KB document held 16 KB (a 20,000-page crawl grew the
 * scraper by ~300 MB before this).
 */
export function compact(buffer: Buffer): Buffer {
  if (buffer.buffer.byteLength <= buffer.length + 1024) return buffer;
  const copy = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(copy);
  return copy;
}
