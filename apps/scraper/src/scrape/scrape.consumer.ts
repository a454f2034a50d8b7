import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  changeTrackingDeleteRpc,
  CONSUMERS,
  normalizeCacheUrl,
  SCRAPE_HITS,
  SCRAPE_RPC,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { SnapshotStore } from './formats/change-tracking/snapshot-store';
import { CacheStore } from './cache/cache-store';
import { ScrapeStore } from './storage/scrape-store';
import { GetScrapeUseCase } from './use-cases/get-scrape.usecase';
import { ReadDocumentChunkUseCase } from './use-cases/read-document-chunk.usecase';
import { StoreHitsUseCase } from './use-cases/store-hits.usecase';
import { RunScrapeUseCase } from './use-cases/run-scrape.usecase';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Serves the scrape RPCs in the `scraper` queue group (any number of replicas share the work) and
 * purges expired jobs and cache entries (idempotent, so every replica may run it).
 */
@Injectable()
export class ScrapeConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly messaging: Messaging,
    private readonly runScrape: RunScrapeUseCase,
    private readonly getScrape: GetScrapeUseCase,
    private readonly readChunk: ReadDocumentChunkUseCase,
    private readonly storeHits: StoreHitsUseCase,
    private readonly scrapes: ScrapeStore,
    private readonly cache: CacheStore,
    private readonly snapshots: SnapshotStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.messaging.serve(SCRAPE_RPC.run, (req) => this.runScrape.execute(req));
    this.messaging.serve(SCRAPE_RPC.get, (req) => this.getScrape.execute(req));
    this.messaging.serve(SCRAPE_RPC.documentChunk, (req) => this.readChunk.execute(req));
    this.messaging.serve(changeTrackingDeleteRpc, async ({ teamId, url }) => ({
      deleted: await this.snapshots.deleteTeam(
        teamId,
        url === undefined ? undefined : normalizeCacheUrl(url),
      ),
    }));
    // A few batches at once: their rows then share INSERTs too (natural batching in the store).
    await this.messaging.consume(
      SCRAPE_HITS,
      CONSUMERS.scraperHits,
      (batch) => this.storeHits.execute(batch),
      {
        concurrency: 4,
      },
    );
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.purgeTimer);
  }

  private async purge(): Promise<void> {
    try {
      const jobs = await this.scrapes.purgeExpired();
      const entries = await this.cache.purgeExpired();
      if (jobs + entries > 0) this.logger.info({ jobs, entries }, 'purged expired scrapes and cache entries');
    } catch (err) {
      this.logger.warn({ err }, 'purging expired scrapes failed');
    }
  }
}
