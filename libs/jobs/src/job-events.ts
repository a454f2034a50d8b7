import { createHash } from 'node:crypto';
import {
  EVENTS,
  WebhookConfig,
  webhookEventType,
  webhookWants,
  type Document,
  type JobEventInput,
  type WebhookEventKind,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { z } from 'zod';
import type { JobRow } from './job.types';

/** Job kinds with webhook events. */
const WEBHOOK_JOB_KINDS: ReadonlySet<string> = new Set(['crawl', 'batch']);

/** A page document larger than this travels trimmed (metadata only) in its event. */
export const EVENT_DOCUMENT_MAX_BYTES = 256 * 1024;

/** A UUID derived from `parts`, so a re-published event keeps its webhookId (and JetStream msgId). */
export function stableUuid(...parts: string[]): string {
  const h = createHash('sha1').update(parts.join('\u0000')).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * Which page events a job service publishes (`WDS_JOB_PAGE_EVENTS`): `webhook` only those the job's
 * webhook asks for; `all` every page of every job, for operators who consume `WDS_EVENTS_V1`
 * themselves. Pages of zero-data-retention jobs go only to their own webhook either way.
 */
export const JOB_PAGE_EVENTS = ['webhook', 'all'] as const;
export type JobPageEvents = (typeof JOB_PAGE_EVENTS)[number];

/** `WDS_JOB_PAGE_EVENTS` in a service's environment schema. */
export function jobPageEventsEnv() {
  return z.enum(JOB_PAGE_EVENTS).default('webhook');
}

export interface JobEventsOptions {
  /** Default `webhook`. */
  pageEvents?: JobPageEvents;
}

export interface PageEventInput {
  urlKey: string;
  success: boolean;
  document?: Document;
  documentBytes?: number;
  error?: string;
}

/**
 * Publishes job lifecycle events on `EVENTS.job` in the webhook body shape, with the job's webhook
 * config and team, for the webhooks service. Lifecycle events are always published (recorded
 * even without a webhook); page events only when the job's webhook wants them (or the operator
 * chose `all`), because they carry documents and the events stream keeps messages for days.
 * Events of zero-data-retention jobs say so, and the webhooks service removes them from the stream.
 */
export class JobEvents {
  constructor(
    private readonly messaging: Messaging,
    private readonly jobKind: 'crawl' | 'batch',
    private readonly opts: JobEventsOptions = {},
  ) {}

  /**
   * A reopened job's later rounds get their own webhookIds: their `completed` is a new event.
   * A failed job's event carries no `error` (api-v2.md allows it on page events only): the reason
   * is in the job's errors, where whoever ends a job as failed records it (`JobStore.end`).
   */
  async lifecycle(job: JobRow, kind: Exclude<WebhookEventKind, 'page'>): Promise<void> {
    const success = kind !== 'failed';
    const webhookId =
      job.reopened > 0 ? stableUuid(job.id, kind, `round:${job.reopened}`) : stableUuid(job.id, kind);
    await this.send(job, kind, webhookId, { success, data: [] });
  }

  async page(job: JobRow, input: PageEventInput): Promise<void> {
    const webhook = this.webhookOf(job);
    const wanted = webhook !== undefined && webhookWants(webhook, 'page');
    // A zero-data-retention job's documents go to its own webhook only, never to the stream at large.
    if (!wanted && (this.opts.pageEvents !== 'all' || job.zeroDataRetention)) return;
    let data: Document[] = [];
    if (input.document) {
      const small = (input.documentBytes ?? 0) <= EVENT_DOCUMENT_MAX_BYTES;
      data = [
        small
          ? input.document
          : {
              metadata: input.document.metadata,
              warning: `Document too large for an event; read it from GET /v2/${this.jobKind === 'crawl' ? 'crawl' : 'batch/scrape'}/${job.id}`,
            },
      ];
    }
    await this.send(job, 'page', stableUuid(job.id, 'page', input.urlKey), {
      success: input.success,
      data,
      ...(input.error ? { error: input.error } : {}),
    });
  }

  private webhookOf(job: JobRow): WebhookConfig | undefined {
    if (!job.webhook) return undefined;
    const parsed = WebhookConfig.safeParse(job.webhook);
    return parsed.success ? parsed.data : undefined;
  }

  private async send(
    job: JobRow,
    kind: WebhookEventKind,
    webhookId: string,
    body: { success: boolean; data: Document[]; error?: string },
  ): Promise<void> {
    // Only crawl and batch jobs have webhook events: the other kinds a job service runs (the batch
    // service's extract and agent jobs) send none.
    if (!WEBHOOK_JOB_KINDS.has(job.kind)) return;
    const webhook = this.webhookOf(job);
    const event: JobEventInput = {
      ...body,
      type: webhookEventType(this.jobKind, kind),
      id: job.id,
      webhookId,
      teamId: job.teamId,
      ...(webhook ? { webhook, ...(webhook.metadata ? { metadata: webhook.metadata } : {}) } : {}),
      ...(job.zeroDataRetention ? { zeroDataRetention: true } : {}),
    };
    await this.messaging.publish(EVENTS.job, event, { msgId: webhookId });
  }
}
