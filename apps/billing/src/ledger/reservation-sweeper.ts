import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Database } from '@wds/database';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER, Periodic } from '@wds/service-kit';
import type { BillingConfig } from '../config';
import { ledgerSql } from './ledger.repository';
import { ReleaseCredits } from './release-credits.usecase';

const SWEEP_EVERY_MS = 30_000;
const BATCH = 100;

/**
 * Gives back credits held by reservations nobody settled before they expired (a browser-pool
 * replica died with its session, a settle was lost), settles expired credit blocks at their
 * reported usage, and deletes per-request usage rows past WDS_USAGE_RETENTION_DAYS. Safe on every replica: releasing re-checks
 * status and expiry under the row lock, and releasing twice is a no-op.
 */
@Injectable()
export class ReservationSweeper implements OnModuleInit, OnApplicationShutdown {
  private readonly periodic: Periodic<number>;

  constructor(
    private readonly db: Database,
    private readonly release: ReleaseCredits,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: BillingConfig,
  ) {
    this.periodic = new Periodic({
      everyMs: SWEEP_EVERY_MS,
      run: () => this.sweep(),
      logger,
      what: 'reservation sweep',
    });
  }

  onModuleInit(): void {
    this.periodic.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }

  /** Releases expired reservations; returns how many this call released. */
  sweepOnce(): Promise<number> {
    return this.periodic.runOnce();
  }

  /** Per-request usage rows past retention go, in bounded batches (the ledger keeps the totals). */
  private async purgeOldUsage(): Promise<void> {
    for (;;) {
      const res = await this.db.query(
        `DELETE FROM billing.usage WHERE ctid IN (
           SELECT ctid FROM billing.usage
           WHERE created_at < now() - make_interval(days => $1) LIMIT 5000)`,
        [this.config.WDS_USAGE_RETENTION_DAYS],
      );
      if ((res.rowCount ?? 0) < 5000) return;
    }
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
    await this.purgeOldUsage();
    return released;
  }
}
