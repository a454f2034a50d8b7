import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, HealthProblems, LOGGER, Periodic } from '@wds/service-kit';
import { DeliveryLoop } from './delivery-loop';
import { DeliveryStore } from './delivery-store';
import type { WebhooksEnv } from './webhooks.env';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The delivery loop and the retention purge (the job events and the delivery-log RPC are
 * `WebhooksController`'s). Shutdown: the transport stops taking events first (`app.close()` closes
 * it before the shutdown hooks), then this lets attempts in flight finish and record their outcome.
 */
@Injectable()
export class WebhooksRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly periodic: Periodic;

  constructor(
    private readonly loop: DeliveryLoop,
    private readonly store: DeliveryStore,
    @Inject(APP_CONFIG) private readonly config: WebhooksEnv,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly problems: HealthProblems,
  ) {
    this.periodic = new Periodic({
      everyMs: PURGE_INTERVAL_MS,
      run: () => this.purge(),
      logger,
      what: 'purging finished webhook deliveries',
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.loop.start();
    this.problems.register('delivery', () => {
      const stuck = this.loop.overdue();
      return stuck > 0 ? `${stuck} delivery attempt(s) running past their deadline (deliverer wedged)` : null;
    });
    this.periodic.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
    await this.loop.stop();
  }

  private async purge(): Promise<void> {
    const deleted = await this.store.purgeFinished(this.config.WDS_WEBHOOK_RETENTION_DAYS * DAY_MS);
    if (deleted > 0) this.logger.info({ deleted }, 'purged finished webhook deliveries');
  }
}
