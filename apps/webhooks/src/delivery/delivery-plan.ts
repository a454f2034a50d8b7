import {
  ANSWER_EVENT_JOB_KINDS,
  webhookEventKind,
  webhookJobKind,
  webhookWants,
  type JobEvent,
  type WebhookEvent,
  type WebhookEventKind,
} from '@wds/contracts';

/**
 * Delivery order within a job: every page (or agent step) after `started`, `completed`/`failed`
 * after every page.
 */
export const PHASE: Record<WebhookEventKind, number> = {
  started: 0,
  page: 1,
  action: 1,
  completed: 2,
  failed: 2,
  cancelled: 2,
};

/** Headers a webhook configuration may not set: the transport and the signature are ours. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'x-service-signature',
]);

/** A row of the outbox, ready to insert. */
export interface PlannedDelivery {
  webhookId: string;
  teamId: string;
  jobId: string;
  type: WebhookEvent['type'];
  url: string;
  destination: string;
  phase: number;
  /** Producer order within the job (JobEvent.seq), 0 when absent; orders the delivery log. */
  seq: number;
  headers: Record<string, string>;
  /** Serialised once; every attempt sends (and signs) exactly these bytes. */
  body: Buffer;
  /** Whether pages of this job should wait for a `started` row (the filter may exclude it). */
  expectsStarted: boolean;
  /** The job runs with zero data retention: the body is erased once the delivery is final. */
  zeroDataRetention: boolean;
}

/** What to deliver for a job event; undefined when the job has no webhook or its filter skips the event. */
export function planDelivery(event: JobEvent): PlannedDelivery | undefined {
  const config = event.webhook;
  if (!config) return undefined;
  const kind = webhookEventKind(event.type);
  if (!webhookWants(config, kind)) return undefined;
  const metadata = event.metadata ?? config.metadata;
  // The spec's body, fields in its order; on crawl and batch events `error` only on a page event
  // whose producer set it (api-v2.md: "Only on crawl.page"); extract and agent events say why they
  // failed, and `warning` what their answer leaves out. Routing fields and the ZDR flag stay out.
  const ownEvents = ANSWER_EVENT_JOB_KINDS.has(webhookJobKind(event.type));
  const body: WebhookEvent = {
    success: event.success,
    type: event.type,
    id: event.id,
    webhookId: event.webhookId,
    data: event.data,
    ...(metadata !== undefined ? { metadata } : {}),
    ...((kind === 'page' || ownEvents) && event.error !== undefined ? { error: event.error } : {}),
    ...(ownEvents && event.warning !== undefined ? { warning: event.warning } : {}),
  };
  const url = new URL(config.url);
  return {
    webhookId: event.webhookId,
    teamId: event.teamId,
    jobId: event.id,
    type: event.type,
    url: config.url,
    destination: destinationOf(url),
    phase: PHASE[kind],
    seq: event.seq ?? 0,
    headers: Object.fromEntries(
      Object.entries(config.headers ?? {}).filter(([name]) => !RESERVED_HEADERS.has(name.toLowerCase())),
    ),
    body: Buffer.from(JSON.stringify(body), 'utf8'),
    expectsStarted: webhookWants(config, 'started'),
    zeroDataRetention: event.zeroDataRetention === true,
  };
}

/** `scheme://host:port`, the unit of the per-destination concurrency cap. */
export function destinationOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.protocol}//${url.hostname}:${port}`;
}
