import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CONSUMERS, EVENTS, RPC } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, HealthProblems, LOGGER } from '@wds/service-kit';
import { DeliveryLoop } from './delivery-loop';
import { DeliveryStore } from './delivery-store';
import { ListDeliveriesUseCase } from './list-deliveries.usecase';
import { RecordEventUseCase } from './record-event.usecase';
import type { WebhooksEnv } from './webhooks.env';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Wires the service to NATS: job events from the durable consumer into the outbox (acked only once
 * stored; events of zero-data-retention jobs then deleted from the stream), the delivery-log RPC, the delivery loop and the retention purge. Shutdown stops taking
 * events first, then lets attempts in flight finish and record their outcome.
 */
@Injectable()
export class WebhooksRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: { stop(): Promise<void> };
  private purgeTimer?: NodeJS.Timeout;

  constructor(
    private readonly messaging: Messaging,
    private readonly record: RecordEventUseCase,
    private readonly listDeliveries: ListDeliveriesUseCase,
    private readonly loop: DeliveryLoop,
    private readonly store: DeliveryStore,
    @Inject(APP_CONFIG) private readonly config: WebhooksEnv,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly problems: HealthProblems,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.messaging.serve(RPC.webhookDeliveriesList, (req) => this.listDeliveries.execute(req));
    this.consumer = await this.messaging.consume(
      EVENTS.job,
      CONSUMERS.webhooks,
      async (event, ctx) => {
        if (await this.record.execute(event)) this.loop.wake();
        // A zero-data-retention event lives on in its outbox row only (if any), not for the
        // stream's days. Deleted before the ack: a failed delete is retried with the redelivery.
        if (event.zeroDataRetention)
          await this.messaging.deleteMessage(CONSUMERS.webhooks.stream, ctx.streamSeq);
      },
      { concurrency: this.config.WDS_WEBHOOK_CONSUMER_CONCURRENCY },
    );
    this.loop.start();
    this.problems.register('delivery', () => {
      const stuck = this.loop.overdue();
      return stuck > 0 ? `${stuck} delivery attempt(s) running past their deadline (deliverer wedged)` : null;
    });
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.consumer?.stop();
    await this.loop.stop();
  }

  private async purge(): Promise<void> {
    try {
      const deleted = await this.store.purgeFinished(this.config.WDS_WEBHOOK_RETENTION_DAYS * DAY_MS);
      if (deleted > 0) this.logger.info({ deleted }, 'purged finished webhook deliveries');
    } catch (err) {
      this.logger.warn({ err }, 'purging finished webhook deliveries failed');
    }
  }
}
