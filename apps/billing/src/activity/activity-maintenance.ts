import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Database } from '@wds/database';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER, Periodic } from '@wds/service-kit';
import type { BillingConfig } from '../config';
import { ActivityPartitions } from './activity-partitions';
import { attributeJobUsage } from './usage-attribution';

const EVERY_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Keeps activity within its retention (WDS_ACTIVITY_RETENTION_DAYS): creates the partitions of the
 * next days ahead, drops those past the retention, deletes job keys and token events past it, and
 * attributes page usage that arrived before its job's activity event. Safe on every replica.
 */
@Injectable()
export class ActivityMaintenance implements OnModuleInit, OnApplicationShutdown {
  private readonly periodic: Periodic;

  constructor(
    private readonly db: Database,
    private readonly partitions: ActivityPartitions,
    @Inject(APP_CONFIG) private readonly config: BillingConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.periodic = new Periodic({
      everyMs: EVERY_MS,
      run: () => this.run(),
      logger,
      what: 'activity maintenance',
    });
  }

  onModuleInit(): void {
    this.periodic.start({ now: true });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }

  runOnce(): Promise<void> {
    return this.periodic.runOnce();
  }

  private async run(): Promise<void> {
    const now = Date.now();
    await this.partitions.ensureFor([now, now + DAY_MS, now + 2 * DAY_MS]);
    const days = this.config.WDS_ACTIVITY_RETENTION_DAYS;
    const dropped = await this.partitions.dropOlderThan(days);
    const keys = await this.db.query(
      `DELETE FROM billing.job_keys WHERE created_at < now() - make_interval(days => $1)`,
      [days],
    );
    const tokens = await this.db.query(
      `DELETE FROM billing.token_events WHERE recorded_at < now() - make_interval(days => $1)`,
      [days],
    );
    const moved = await attributeJobUsage(this.db);
    if (dropped.length || keys.rowCount || tokens.rowCount || moved) {
      this.logger.info(
        { dropped, jobKeys: keys.rowCount, tokenEvents: tokens.rowCount, attributedCredits: moved },
        'activity maintenance',
      );
    }
  }
}
