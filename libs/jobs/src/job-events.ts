import { createHash } from 'node:crypto';
import {
  ANSWER_EVENT_JOB_KINDS,
  EVENTS,
  WebhookConfig,
  webhookEventType,
  webhookWants,
  type Document,
  type JobEventInput,
  type WebhookEventKind,
  type WebhookJobKind,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { z } from 'zod';
import type { JobRow } from './job.types';

/** Job kinds whose events are typed by their service (`crawl`, `batch_scrape`). */
const PAGE_JOB_KINDS: ReadonlySet<string> = new Set(['crawl', 'batch']);

/** A job's lifecycle moments (every event kind but `page` and an agent's `action`). */
export type LifecycleKind = Exclude<WebhookEventKind, 'page' | 'action'>;

/** What a lifecycle event says when the job's own state decides it (extract, agent). */
export interface LifecycleEventBody {
  /** The event's kind: an extract whose pages all gave no answer completes as `failed`. */
  kind: LifecycleKind;
  success: boolean;
  /** The answer of a completed job (one element), else empty. */
  data: unknown[];
  error?: string;
  warning?: string;
}

/** The body of a job's lifecycle event, or undefined for the default (`data: []`). */
export type LifecycleBodies = (job: JobRow, kind: LifecycleKind) => Promise<LifecycleEventBody | undefined>;

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
  /** Bodies of the lifecycle events of job kinds that answer as a whole (the page hooks'). */
  lifecycleBodies?: LifecycleBodies;
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
   * A failed crawl or batch's event carries no `error` (api-v2.md allows it on page events only):
   * the reason is in the job's errors, where whoever ends a job as failed records it
   * (`JobStore.end`). Extract and agent jobs answer as a whole: their events' bodies (the answer,
   * or why there is none) come from `lifecycleBodies`, and their webhookId from the moment asked
   * for, so an extract that completes without an answer sends one `failed` event however often
   * its completion is published.
   */
  async lifecycle(job: JobRow, kind: LifecycleKind): Promise<void> {
    if (this.eventJobKind(job) === undefined) return;
    const webhookId =
      job.reopened > 0 ? stableUuid(job.id, kind, `round:${job.reopened}`) : stableUuid(job.id, kind);
    const own = ANSWER_EVENT_JOB_KINDS.has(job.kind)
      ? await this.opts.lifecycleBodies?.(job, kind)
      : undefined;
    const { kind: said, ...body } = own ?? {
      kind,
      success: kind !== 'failed' && kind !== 'cancelled',
      data: [],
    };
    await this.send(job, said, webhookId, body);
  }

  async page(job: JobRow, input: PageEventInput): Promise<void> {
    // Extract and agent jobs have no page events: their answer comes whole, with `completed`.
    if (!PAGE_JOB_KINDS.has(job.kind)) return;
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

  /**
   * An agent job's step, as its run reported it (`agent.action`, `data: [step]`). Like page events,
   * published only when the job's webhook wants it (or the operator chose `all`). The webhookId
   * comes from the run and the step number, so a step reported twice is one event; `seq` is when
   * the step ended, so steps are delivered in order (a second run's after the first's).
   */
  async action(
    job: JobRow,
    runId: string,
    step: { step: number; at?: number; outcome: string },
  ): Promise<void> {
    if (job.kind !== 'agent') return;
    const webhook = this.webhookOf(job);
    const wanted = webhook !== undefined && webhookWants(webhook, 'action');
    if (!wanted && (this.opts.pageEvents !== 'all' || job.zeroDataRetention)) return;
    await this.send(job, 'action', stableUuid(job.id, 'action', runId, String(step.step)), {
      success: step.outcome === 'ok',
      data: [step],
      seq: step.at ?? step.step,
    });
  }

  private webhookOf(job: JobRow): WebhookConfig | undefined {
    if (!job.webhook) return undefined;
    const parsed = WebhookConfig.safeParse(job.webhook);
    return parsed.success ? parsed.data : undefined;
  }

  /** The kind a job's events are typed by, or undefined for a kind without events. */
  private eventJobKind(job: JobRow): WebhookJobKind | undefined {
    if (PAGE_JOB_KINDS.has(job.kind)) return this.jobKind;
    return ANSWER_EVENT_JOB_KINDS.has(job.kind) ? (job.kind as WebhookJobKind) : undefined;
  }

  private async send(
    job: JobRow,
    kind: WebhookEventKind,
    webhookId: string,
    body: { success: boolean; data: unknown[]; error?: string; warning?: string; seq?: number },
  ): Promise<void> {
    const jobKind = this.eventJobKind(job);
    if (jobKind === undefined) return;
    const webhook = this.webhookOf(job);
    const event: JobEventInput = {
      ...body,
      type: webhookEventType(jobKind, kind),
      id: job.id,
      webhookId,
      teamId: job.teamId,
      ...(webhook ? { webhook, ...(webhook.metadata ? { metadata: webhook.metadata } : {}) } : {}),
      ...(job.zeroDataRetention ? { zeroDataRetention: true } : {}),
    };
    await this.messaging.publish(EVENTS.job, event, { msgId: webhookId });
  }
}
