import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Database } from '@wds/database';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { ledgerSql } from './ledger.repository';
import { ReleaseCredits } from './release-credits.usecase';

const SWEEP_EVERY_MS = 30_000;
const BATCH = 100;

/**
 * Gives back credits held by reservations nobody settled or released before they expired (the
 * gateway crashed mid-request, a release was lost). Safe on every replica: releasing re-checks
 * status and expiry under the row lock, and releasing twice is a no-op.
 */
@Injectable()
export class ReservationSweeper implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly db: Database,
    private readonly release: ReleaseCredits,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.sweepOnce().catch((err: unknown) => this.logger.warn({ err }, 'reservation sweep failed'));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Releases expired reservations; returns how many this call released. */
  sweepOnce(): Promise<number> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<number> {
    let released = 0;
    for (;;) {
      const ids = await ledgerSql.expiredReservationIds(this.db, BATCH);
      for (const id of ids) {
        const outcome = await this.release.execute({
          reservationId: id,
          reason: 'expired',
          onlyIfExpired: true,
        });
        if (!outcome.replayed) released++;
      }
      if (ids.length < BATCH) break;
    }
    if (released) this.logger.info({ released }, 'released expired credit reservations');
    return released;
  }
}
