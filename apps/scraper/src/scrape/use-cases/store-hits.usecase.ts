import { cacheHitMetadata, type ScrapeHitBatch } from '@wds/contracts';
import type { DocumentDelivery } from './document-delivery';

/**
 * Stores the cache hits a gateway answered from its hot copies (ADR 0006): each becomes the job
 * row a hit served here would have (the entry's gzip as the gateway sent it + the hit's
 * metadata), so GET /v2/scrape/{id} returns exactly what was answered. All rows of a batch share
 * one INSERT (see PgScrapeStore); storing a job twice changes nothing.
 */
export class StoreHitsUseCase {
  constructor(private readonly delivery: DocumentDelivery) {}

  async execute(batch: ScrapeHitBatch): Promise<void> {
    const documents = batch.documents.map((d) => Buffer.from(d, 'base64'));
    // Queued in one go, so the whole batch shares one statement.
    await Promise.all(
      batch.hits.map((hit) =>
        this.delivery.recordShared({
          teamId: hit.teamId,
          jobId: hit.jobId,
          url: hit.url,
          gz: documents[hit.document],
          metadataPatch: cacheHitMetadata(hit.jobId, hit.fetchedAt, hit.creditsUsed),
          creditsUsed: hit.creditsUsed,
          cacheHit: true,
          statusCode: hit.statusCode,
          // Every hot hit answered a public POST /v2/scrape: it is that call's activity record.
          activity: { apiKey: hit.apiKey ?? null, createdAt: hit.answeredAt ?? Date.now() },
        }),
      ),
    );
  }
}
