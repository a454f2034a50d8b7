import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONSUMERS,
  EVENTS,
  RPC,
  type JobEventInput,
  type WebhookDeliveriesListReply,
  type WebhookDelivery,
} from '@wds/contracts';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase } from '@wds/testing';
import type { WebhooksConfig } from '../../src/config';
import { webhooksServiceOptions } from '../../src/webhooks.service-options';

/** Fast settings so retries and give-ups happen within a test. */
export const FAST_ENV: Record<string, string> = {
  WDS_WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms',
  WDS_WEBHOOK_TIMEOUT_MS: '400',
  WDS_WEBHOOK_POLL_INTERVAL_MS: '25',
  WDS_WEBHOOK_ORDER_SETTLE_MS: '300',
  WDS_WEBHOOK_SECRET_CACHE_MS: '0',
};

/**
 * A private nats-server (the `webhooks-v1` durable and the RPC queue groups must not be shared
 * with other suites), a fresh database, and a client that publishes job events and stands in for
 * the gateway's team-secret RPC.
 */
export class WebhooksStack {
  readonly secrets = new Map<string, string>();
  private readonly services = new Set<RunningService<WebhooksConfig>>();

  private constructor(
    readonly natsUrl: string,
    readonly databaseUrl: string,
    readonly client: Messaging,
    private readonly cleanup: () => Promise<void>,
  ) {
    client.serve(RPC.webhookSecret, async ({ teamId }) => ({ secret: this.secrets.get(teamId) ?? null }));
  }

  static async start(): Promise<WebhooksStack> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-webhooks-test-'));
    const nats: RunningServer = await startNats({ dataDir: path.join(dir, 'nats') });
    const db = await createTestDatabase('webhooks');
    const client = await Messaging.connect({
      servers: nats.url,
      name: 'webhooks-test-client',
      logger: createLogger({ service: 'webhooks-test', level: 'silent' }),
    });
    return new WebhooksStack(nats.url, db.url, client, async () => {
      await client.drain();
      await db.drop();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
  }

  /** The webhooks service in this process (real Nest module, migrations, consumer, loop). */
  async startService(env: Record<string, string> = {}): Promise<RunningService<WebhooksConfig>> {
    const service = await bootstrapService(
      webhooksServiceOptions({
        NATS_URL: this.natsUrl,
        DATABASE_URL: this.databaseUrl,
        HEALTH_PORT: '0',
        HEALTH_HOST: '127.0.0.1',
        LOG_LEVEL: process.env.WDS_TEST_LOG_LEVEL ?? 'fatal',
        ...FAST_ENV,
        ...env,
      }),
    );
    this.services.add(service);
    return service;
  }

  async stopService(service: RunningService<WebhooksConfig>): Promise<void> {
    this.services.delete(service);
    await service.stop();
  }

  publish(event: JobEventInput): Promise<void> {
    return this.client.publish(EVENTS.job, event, { msgId: event.webhookId });
  }

  log(teamId: string, jobId: string, limit = 100, cursor?: string): Promise<WebhookDeliveriesListReply> {
    return this.client.request(RPC.webhookDeliveriesList, { teamId, jobId, limit, cursor });
  }

  /** Polls the delivery log until `done` holds for it (rejects with the last log after `timeoutMs`). */
  async waitForLog(
    teamId: string,
    jobId: string,
    done: (deliveries: WebhookDelivery[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<WebhookDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { deliveries } = await this.log(teamId, jobId);
      if (done(deliveries)) return deliveries;
      if (Date.now() > deadline) throw new Error(`delivery log never matched: ${JSON.stringify(deliveries)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Resolves once the service's job-event consumer has handled every published event (nothing
   * pending, nothing unacknowledged): the positive barrier before asserting that nothing more
   * arrives, since an event it has not recorded by then never will be.
   */
  async eventsHandled(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const c = await this.client.jsm.consumers.info(CONSUMERS.webhooks.stream, CONSUMERS.webhooks.durable);
      if (c.num_pending === 0 && c.num_ack_pending === 0) return;
      if (Date.now() > deadline)
        throw new Error(
          `job events still unhandled: ${c.num_pending} pending, ${c.num_ack_pending} unacknowledged`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    for (const s of this.services) await s.stop();
    this.services.clear();
    await this.cleanup();
  }
}

/** A job event as the crawler/batch services publish it. */
export function jobEvent(
  jobId: string,
  teamId: string,
  type: JobEventInput['type'],
  webhook: JobEventInput['webhook'],
  extra: Partial<JobEventInput> = {},
): JobEventInput {
  const isPage = type.endsWith('.page');
  return {
    success: true,
    type,
    id: jobId,
    webhookId: randomUUID(),
    data: isPage
      ? [{ markdown: `# page of ${jobId}`, metadata: { sourceURL: 'https://site.example/a' } }]
      : [],
    teamId,
    webhook,
    ...extra,
  };
}
