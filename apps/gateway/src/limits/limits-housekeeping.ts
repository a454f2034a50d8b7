import { Inject, Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { ConcurrencyLimiter, LEASE_TTL_MS } from './concurrency-limiter';
import { TeamRateLimiter } from './team-rate-limiter';

const RENEW_EVERY_MS = Math.floor(LEASE_TTL_MS / 3);
const PURGE_EVERY_MS = 5 * 60_000;

/** Renews this replica's concurrency leases while requests run and purges expired limiter rows. */
@Injectable()
export class LimitsHousekeeping implements OnModuleInit, BeforeApplicationShutdown {
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly concurrency: ConcurrencyLimiter,
    private readonly rate: TeamRateLimiter,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timers = [
      setInterval(
        () =>
          this.run('renew leases', async () => {
            await this.concurrency.returnIdleSpares(RENEW_EVERY_MS);
            await this.concurrency.renewHeld();
          }),
        RENEW_EVERY_MS,
      ),
      setInterval(
        () =>
          this.run('purge limiter rows', async () => {
            await this.concurrency.deleteExpired();
            await this.rate.deleteExpired();
          }),
        PURGE_EVERY_MS,
      ),
    ];
    for (const t of this.timers) t.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.concurrency
      .releaseAll()
      .catch((err: unknown) => this.logger.warn({ err }, 'could not free leases'));
  }

  private run(what: string, fn: () => Promise<void>): void {
    fn().catch((err: unknown) => this.logger.warn({ err }, `${what} failed`));
  }
}
