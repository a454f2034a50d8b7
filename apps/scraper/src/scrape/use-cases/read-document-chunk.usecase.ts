import {
  SCRAPE_DOCUMENT_CHUNK_BYTES,
  ServiceError,
  type ScrapeDocumentChunkReply,
  type ScrapeDocumentChunkRequest,
} from '@wds/contracts';
import { chunkCount } from '../storage/document-codec';
import type { ScrapeStore } from '../storage/scrape-store';

/** One chunk of a stored document too large for a message; the last read of a ZDR document erases it. */
export class ReadDocumentChunkUseCase {
  constructor(private readonly scrapes: ScrapeStore) {}

  async execute(req: ScrapeDocumentChunkRequest): Promise<ScrapeDocumentChunkReply> {
    const offset = req.index * SCRAPE_DOCUMENT_CHUNK_BYTES;
    const range = await this.scrapes.readDocumentRange(req.jobId, offset, SCRAPE_DOCUMENT_CHUNK_BYTES);
    if (!range) throw new ServiceError('NOT_FOUND', `Scrape job ${req.jobId} has no stored document`);
    if (range.teamId !== req.teamId)
      throw new ServiceError('FORBIDDEN', 'This scrape job belongs to another team');
    const chunks = chunkCount(range.total, SCRAPE_DOCUMENT_CHUNK_BYTES);
    if (req.index >= chunks) {
      throw new ServiceError(
        'BAD_REQUEST',
        `Chunk ${req.index} is out of range (the document has ${chunks})`,
      );
    }
    if (range.zeroDataRetention && req.index === chunks - 1) await this.scrapes.forgetDocument(req.jobId);
    return { index: req.index, chunks, data: range.data.toString('base64') };
  }
}
