import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';
import { Document } from '@wds/contracts';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * Up to this size (JSON) a document is compressed on the calling thread: measured here, a 4 KB
 * document costs ~50 µs of CPU that way against ~130–220 µs through the thread pool (its handoff
 * dominates small inputs). Larger ones go to the thread pool so the event loop keeps serving.
 */
const INLINE_ZLIB_MAX_BYTES = 64 * 1024;

/**
 * Level 1: stored documents are written for every page and rarely read back. Measured on 5 KB of
 * varied text, level 1 takes about half the CPU of level 6 for ~10% more bytes.
 */
const GZIP_LEVEL = 1;

/** Stored form of a document: gzip of its JSON. */
export async function encodeDocument(document: Document): Promise<{ gz: Buffer; jsonBytes: number }> {
  const json = Buffer.from(JSON.stringify(document), 'utf8');
  const gz =
    json.length <= INLINE_ZLIB_MAX_BYTES
      ? gzipSync(json, { level: GZIP_LEVEL })
      : await gzipAsync(json, { level: GZIP_LEVEL });
  return { gz, jsonBytes: json.length };
}

export async function decodeDocument(gz: Buffer): Promise<Document> {
  // Compressed documents are rarely a tenth of their JSON: small ones are small JSON too.
  const json = gz.length <= INLINE_ZLIB_MAX_BYTES / 8 ? gunzipSync(gz) : await gunzipAsync(gz);
  return Document.parse(JSON.parse(json.toString('utf8')));
}

export function chunkCount(bytes: number, chunkBytes: number): number {
  return Math.max(1, Math.ceil(bytes / chunkBytes));
}
