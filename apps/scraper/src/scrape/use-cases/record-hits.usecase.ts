import { cacheHitMetadata, type ScrapeRecordHitsReply, type ScrapeRecordHitsRequest } from '@wds/contracts';
import type { CacheStore } from '../storage/cache-store';
import type { DocumentDelivery } from './document-delivery';

/**
 * Records cache hits a gateway answered from its hot copy of a cache entry: each becomes the same
 * job row a hit served here would (the entry's stored gzip + the hit's metadata), so GET
 * /v2/scrape/{id} returns exactly what was answered. A hit whose entry is no longer held exactly
 * as the gateway saw it (a newer fetch replaced it, or it expired) is not recorded and not listed
 * in the reply; the gateway then scrapes the ordinary way. Recording a job twice changes nothing.
 */
export class RecordHitsUseCase {
  constructor(
    private readonly cache: CacheStore,
    private readonly delivery: DocumentDelivery,
  ) {}

  async execute(req: ScrapeRecordHitsRequest): Promise<ScrapeRecordHitsReply> {
    const entries = await Promise.all(req.hits.map((hit) => this.cache.findExact(hit.key, hit.fetchedAt)));
    const recorded: string[] = [];
    // Queued in one go, so the job rows of the whole batch share one INSERT (see PgScrapeStore).
    await Promise.all(
      req.hits.map((hit, i) => {
        const entry = entries[i];
        if (!entry) return undefined;
        recorded.push(hit.jobId);
        return this.delivery.recordShared({
          teamId: hit.teamId,
          jobId: hit.jobId,
          url: hit.url,
          gz: entry.documentGz,
          metadataPatch: cacheHitMetadata(hit.jobId, hit.fetchedAt, hit.creditsUsed),
          creditsUsed: hit.creditsUsed,
          cacheHit: true,
          statusCode: hit.statusCode,
        });
      }),
    );
    return { recorded };
  }
}
