import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { CacheStore } from './cache/cache-store';
import { ScrapeStore } from './storage/scrape-store';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Purges expired jobs and cache entries (idempotent, so every replica may run it). */
@Injectable()
export class ScrapePurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly scrapes: ScrapeStore,
    private readonly cache: CacheStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
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
