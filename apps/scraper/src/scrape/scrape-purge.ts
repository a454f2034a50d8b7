import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@wds/observability';
import { LOGGER, Periodic } from '@wds/service-kit';
import { CacheStore } from './cache/cache-store';
import { ScrapeStore } from './storage/scrape-store';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Purges expired jobs and cache entries (idempotent, so every replica may run it). */
@Injectable()
export class ScrapePurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly periodic: Periodic;

  constructor(
    private readonly scrapes: ScrapeStore,
    private readonly cache: CacheStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.periodic = new Periodic({
      everyMs: PURGE_INTERVAL_MS,
      run: () => this.purge(),
      logger,
      what: 'purging expired scrapes',
    });
  }

  onApplicationBootstrap(): void {
    this.periodic.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }

  private async purge(): Promise<void> {
    const jobs = await this.scrapes.purgeExpired();
    const entries = await this.cache.purgeExpired();
    if (jobs + entries > 0) this.logger.info({ jobs, entries }, 'purged expired scrapes and cache entries');
  }
}
