import { z } from 'zod';
import type { WebhookEventKind } from './webhook-config';

/** The jobs that send webhook events, and the prefix of their event types. */
export const WEBHOOK_JOB_PREFIXES = {
  crawl: 'crawl',
  batch: 'batch_scrape',
  extract: 'extract',
  agent: 'agent',
} as const;
export type WebhookJobKind = keyof typeof WEBHOOK_JOB_PREFIXES;

/**
 * Job kinds whose events carry the job's answer whole: no page events, and `error` (why it failed)
 * and `warning` (what the answer leaves out) on their lifecycle events.
 */
export const ANSWER_EVENT_JOB_KINDS: ReadonlySet<string> = new Set<WebhookJobKind>(['extract', 'agent']);

export const WEBHOOK_EVENT_TYPES = [
  'crawl.started',
  'crawl.page',
  'crawl.completed',
  'crawl.failed',
  'batch_scrape.started',
  'batch_scrape.page',
  'batch_scrape.completed',
  'batch_scrape.failed',
  'extract.started',
  'extract.completed',
  'extract.failed',
  'agent.started',
  'agent.action',
  'agent.completed',
  'agent.failed',
  'agent.cancelled',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;
const EVENT_TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/** Header carrying `sha256=<hex>` HMAC of the raw body when the team has a webhook secret. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Service-Signature';

/** Body POSTed to the caller's webhook endpoint. */
export const WebhookEvent = z.object({
  success: z.boolean(),
  type: WebhookEventType,
  id: z.uuid().describe('Job id'),
  webhookId: z.uuid().describe('Unique per delivery, identical on retries'),
  data: z
    .array(z.unknown())
    .describe(
      'Page events: the page document (as POST /v2/scrape). agent.action: the step (step, action, target, value, outcome, detail, url, ms, at). extract.completed and agent.completed: the answer, as `data` of GET /v2/extract/{id} or GET /v2/agent/{id}. Otherwise empty',
    ),
  metadata: z.record(z.string(), z.unknown()).optional(),
  error: z
    .string()
    .optional()
    .describe('On page events for a page that failed, and on extract.failed and agent.failed: why'),
  warning: z
    .string()
    .optional()
    .describe(
      'On extract.completed and agent.completed: pages left out of the answer, or, for an answer too large for an event (then not in `data`), where to read it',
    ),
});
export type WebhookEvent = z.output<typeof WebhookEvent>;

export function webhookEventKind(type: WebhookEventType): WebhookEventKind {
  return type.slice(type.indexOf('.') + 1) as WebhookEventKind;
}

/** The job kind an event type belongs to. */
export function webhookJobKind(type: WebhookEventType): WebhookJobKind {
  const prefix = type.slice(0, type.indexOf('.'));
  return prefix === 'batch_scrape' ? 'batch' : (prefix as WebhookJobKind);
}

/** The event type of `kind` for a job of `jobKind`; throws for a pair no job sends (a crawl's `cancelled`). */
export function webhookEventType(jobKind: WebhookJobKind, kind: WebhookEventKind): WebhookEventType {
  const type = `${WEBHOOK_JOB_PREFIXES[jobKind]}.${kind}`;
  if (!EVENT_TYPES.has(type)) throw new Error(`${jobKind} jobs have no ${kind} events`);
  return type as WebhookEventType;
}
