import {
  SCRAPE_DOCUMENT_CHUNK_BYTES,
  SCRAPE_INLINE_MAX_BYTES,
  ServiceError,
  type ScrapeGetRequest,
  type ScrapeStoredReply,
} from '@wds/contracts';
import { chunkCount, decodeDocument } from '../storage/document-codec';
import type { PendingHits } from '../storage/pending-hits';
import type { ScrapeStore } from '../storage/scrape-store';
import { buildMetadata } from '../document/metadata';
import type { StoreHitsUseCase } from './store-hits.usecase';

/** GET /v2/scrape/{id}: a stored scrape, to its own team only. */
export class GetScrapeUseCase {
  constructor(
    private readonly scrapes: ScrapeStore,
    private readonly pendingHits?: { pending: PendingHits; store: StoreHitsUseCase },
  ) {}

  async execute(req: ScrapeGetRequest): Promise<ScrapeStoredReply> {
    let found = await this.scrapes.find(req.jobId);
    if (!found && this.pendingHits) {
      // A hit a gateway answered moments ago may still be on its way to a row: store its batch now.
      const batch = await this.pendingHits.pending.find(req.jobId);
      if (batch) {
        await this.pendingHits.store.execute(batch);
        found = await this.scrapes.find(req.jobId);
      }
    }
    if (!found) throw new ServiceError('NOT_FOUND', `Scrape job ${req.jobId} not found`);
    if (found.teamId !== req.teamId)
      throw new ServiceError('FORBIDDEN', 'This scrape job belongs to another team');
    // A zero-data-retention job keeps no document to read back (a transient one is for its own reply only).
    if (found.zeroDataRetention || !found.documentGz) {
      throw new ServiceError(
        'NOT_FOUND',
        found.status === 'failed'
          ? `Scrape job ${req.jobId} failed and has no document`
          : `Scrape job ${req.jobId} has no stored document (zero data retention)`,
      );
    }
    const stored = await decodeDocument(found.documentGz);
    // A cache hit's row holds the cached document and this job's own metadata beside it.
    const document = found.metadataPatch
      ? { ...stored, metadata: buildMetadata(stored.metadata ?? {}, found.metadataPatch) }
      : stored;
    if (found.metadataPatch || Buffer.byteLength(JSON.stringify(document)) <= SCRAPE_INLINE_MAX_BYTES) {
      return { document };
    }
    const bytes = found.documentGz.length;
    return {
      documentRef: { jobId: req.jobId, bytes, chunks: chunkCount(bytes, SCRAPE_DOCUMENT_CHUNK_BYTES) },
    };
  }
}
