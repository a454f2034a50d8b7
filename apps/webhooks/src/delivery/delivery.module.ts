import { randomUUID } from 'node:crypto';
import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { NetworkPolicy, OutboundHttp } from '@wds/outbound';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import { AttemptDeliveryUseCase, WEBHOOK_USER_AGENT } from './attempt-delivery.usecase';
import { DeliveryLoop } from './delivery-loop';
import { DeliveryStore, PgDeliveryStore } from './delivery-store';
import { GatewaySecretSource } from './gateway-secret-source';
import { ListDeliveriesUseCase, RequeueDeliveriesUseCase } from './list-deliveries.usecase';
import { RecordEventUseCase } from './record-event.usecase';
import { TeamSecrets } from './team-secrets';
import { OutboundWebhookSender, WebhookSender } from './webhook-sender';
import type { WebhooksEnv } from './webhooks.env';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRuntime } from './webhooks.runtime';

const SECRET_RPC_TIMEOUT_MS = 3000;
/** A lease outlives the attempt it covers: the secret lookup, the HTTP timeout, recording the outcome. */
const LEASE_MARGIN_MS = SECRET_RPC_TIMEOUT_MS + 7000;

/** Lease owner: unique per process, so a restarted instance with the same id cannot finish a dead one's attempt. */
const LEASE_OWNER = Symbol('LEASE_OWNER');

@Injectable()
class OutboundLifecycle implements OnApplicationShutdown {
  constructor(private readonly http: OutboundHttp) {}
  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}

@Module({
  controllers: [WebhooksController],
  providers: [
    {
      provide: LEASE_OWNER,
      inject: [APP_CONFIG],
      useFactory: (c: WebhooksEnv) => `${c.WDS_INSTANCE_ID}/${randomUUID().slice(0, 8)}`,
    },
    {
      provide: OutboundHttp,
      inject: [APP_CONFIG],
      useFactory: (c: WebhooksEnv) =>
        new OutboundHttp({
          policy: new NetworkPolicy({ allowlist: c.WDS_PRIVATE_NETWORK_ALLOWLIST }),
          userAgent: WEBHOOK_USER_AGENT,
          connections: c.WDS_WEBHOOK_PER_DESTINATION_CONCURRENCY,
        }),
    },
    OutboundLifecycle,
    {
      provide: WebhookSender,
      inject: [OutboundHttp],
      useFactory: (h: OutboundHttp) => new OutboundWebhookSender(h),
    },
    { provide: DeliveryStore, inject: [Database], useFactory: (db: Database) => new PgDeliveryStore(db) },
    {
      provide: TeamSecrets,
      inject: [APP_CONFIG, Messaging],
      useFactory: (c: WebhooksEnv, m: Messaging) =>
        new TeamSecrets(new GatewaySecretSource(m, SECRET_RPC_TIMEOUT_MS), c.WDS_WEBHOOK_SECRET_CACHE_MS),
    },
    {
      provide: AttemptDeliveryUseCase,
      inject: [APP_CONFIG, DeliveryStore, TeamSecrets, WebhookSender, LEASE_OWNER, LOGGER],
      useFactory: (
        c: WebhooksEnv,
        store: DeliveryStore,
        secrets: TeamSecrets,
        sender: WebhookSender,
        owner: string,
        logger: Logger,
      ) =>
        new AttemptDeliveryUseCase(
          store,
          secrets,
          sender,
          {
            schedule: c.WDS_WEBHOOK_RETRY_SCHEDULE,
            timeoutMs: c.WDS_WEBHOOK_TIMEOUT_MS,
            instance: owner,
            secretRetryMs: Math.min(5000, c.WDS_WEBHOOK_RETRY_SCHEDULE[0]),
          },
          logger.child({ component: 'webhook-delivery' }),
        ),
    },
    {
      provide: DeliveryLoop,
      inject: [APP_CONFIG, DeliveryStore, AttemptDeliveryUseCase, LEASE_OWNER, LOGGER],
      useFactory: (
        c: WebhooksEnv,
        store: DeliveryStore,
        attempt: AttemptDeliveryUseCase,
        owner: string,
        logger: Logger,
      ) =>
        new DeliveryLoop(
          store,
          attempt,
          {
            concurrency: c.WDS_WEBHOOK_CONCURRENCY,
            perDestination: c.WDS_WEBHOOK_PER_DESTINATION_CONCURRENCY,
            pollIntervalMs: c.WDS_WEBHOOK_POLL_INTERVAL_MS,
            leaseMs: c.WDS_WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS,
            instance: owner,
          },
          logger.child({ component: 'webhook-loop' }),
        ),
    },
    {
      provide: RecordEventUseCase,
      inject: [APP_CONFIG, DeliveryStore],
      useFactory: (c: WebhooksEnv, store: DeliveryStore) =>
        new RecordEventUseCase(store, c.WDS_WEBHOOK_ORDER_SETTLE_MS),
    },
    {
      provide: ListDeliveriesUseCase,
      inject: [DeliveryStore],
      useFactory: (s: DeliveryStore) => new ListDeliveriesUseCase(s),
    },
    {
      provide: RequeueDeliveriesUseCase,
      inject: [DeliveryStore, DeliveryLoop],
      useFactory: (s: DeliveryStore, loop: DeliveryLoop) =>
        new RequeueDeliveriesUseCase(s, () => loop.wake()),
    },
    WebhooksRuntime,
  ],
})
export class DeliveryModule {}
