import { z } from 'zod';
import { Document } from '../../api/scrape/document';

/*
 * Scrape results that may not fit in one NATS message (max payload 1 MiB; a 2 MB page yields a
 * larger document). A reply carries the document inline when its JSON is below
 * SCRAPE_INLINE_MAX_BYTES, otherwise a reference: the document is stored gzip-compressed and read
 * with RPC.scrapeDocumentChunk in order (index 0..chunks-1), concatenated, gunzipped, JSON-parsed.
 */

export const SCRAPE_INLINE_MAX_BYTES = 900 * 1024;
/** Raw bytes per chunk; base64 makes a reply of ~700 KB. */
export const SCRAPE_DOCUMENT_CHUNK_BYTES = 512 * 1024;

export const ScrapeDocumentRef = z.object({
  jobId: z.uuid(),
  /** Size of the gzip-compressed JSON. */
  bytes: z.int().min(0),
  chunks: z.int().min(1),
});
export type ScrapeDocumentRef = z.output<typeof ScrapeDocumentRef>;

/** Fields of a reply that carries a document inline or by reference (exactly one). */
export const documentOrRefShape = {
  document: Document.optional(),
  documentRef: ScrapeDocumentRef.optional(),
};

export function hasExactlyOneDocument(r: { document?: unknown; documentRef?: unknown }): boolean {
  return (r.document === undefined) !== (r.documentRef === undefined);
}

export const EXACTLY_ONE_DOCUMENT = { message: 'exactly one of document and documentRef is required' };

export const ScrapeDocumentChunkRequest = z.object({
  teamId: z.string().min(1),
  jobId: z.uuid(),
  index: z.int().min(0),
});
export type ScrapeDocumentChunkRequest = z.output<typeof ScrapeDocumentChunkRequest>;

export const ScrapeDocumentChunkReply = z.object({
  index: z.int().min(0),
  chunks: z.int().min(1),
  /** base64 of bytes [index*SCRAPE_DOCUMENT_CHUNK_BYTES, +SCRAPE_DOCUMENT_CHUNK_BYTES) of the gzip. */
  data: z.string(),
});
export type ScrapeDocumentChunkReply = z.output<typeof ScrapeDocumentChunkReply>;
