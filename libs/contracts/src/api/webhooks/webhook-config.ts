import { z } from 'zod';
import { HttpUrl } from '../common/url';
import { HttpHeaders } from '../common/http-headers';

/** Job lifecycle moments a crawl or batch scrape webhook can subscribe to. */
export const WEBHOOK_EVENT_KINDS = ['started', 'page', 'completed', 'failed'] as const;
/** What an extract job's webhook can subscribe to: it has no page events (its answer comes whole). */
export const EXTRACT_WEBHOOK_EVENT_KINDS = ['started', 'completed', 'failed'] as const;
/**
 * What an agent job's webhook can subscribe to: `action` for each step of the browser agent as it
 * ends, `cancelled` when DELETE /v2/agent/{id} stops it.
 */
export const AGENT_WEBHOOK_EVENT_KINDS = ['started', 'action', 'completed', 'failed', 'cancelled'] as const;
/** Every event kind of any job. */
export const ALL_WEBHOOK_EVENT_KINDS = [
  'started',
  'page',
  'action',
  'completed',
  'failed',
  'cancelled',
] as const;
export const WebhookEventKind = z.enum(ALL_WEBHOOK_EVENT_KINDS);
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

/** A webhook configuration whose `events` are those of `kinds`, refused otherwise with `why`. */
function webhookConfigOf(kinds: readonly [WebhookEventKind, ...WebhookEventKind[]], why: string) {
  return z.strictObject({
    url: HttpUrl,
    headers: HttpHeaders.optional().describe(
      'Extra headers sent with every delivery (RFC 9110 names and values)',
    ),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Echoed as `metadata` in every delivery of this job'),
    events: z
      .array(z.enum(kinds, { error: why }))
      .min(1)
      .optional()
      .describe(`Events to deliver (${kinds.join(', ')}); all of them when absent`),
  });
}

/** The webhook of a job of any kind, as stored with the job and carried by its events. */
export const WebhookConfig = webhookConfigOf(ALL_WEBHOOK_EVENT_KINDS, 'Unknown webhook event');
export type WebhookConfig = z.output<typeof WebhookConfig>;
export type WebhookConfigInput = z.input<typeof WebhookConfig>;

/** A bare URL is shorthand for `{url}`. */
function webhookOptionOf<T extends z.ZodType<WebhookConfig, z.input<typeof WebhookConfig>>>(config: T) {
  return z.union([HttpUrl.transform((url): WebhookConfig => ({ url })), config]);
}

/** The `webhook` option of crawl and batch scrape. */
export const WebhookOption = webhookOptionOf(
  webhookConfigOf(
    WEBHOOK_EVENT_KINDS,
    'Crawl and batch scrape webhooks have the events started, page, completed and failed',
  ),
);
export type WebhookOption = z.output<typeof WebhookOption>;
export type WebhookOptionInput = z.input<typeof WebhookOption>;

/** The `webhook` option of POST /v2/extract. */
export const ExtractWebhookOption = webhookOptionOf(
  webhookConfigOf(
    EXTRACT_WEBHOOK_EVENT_KINDS,
    'Extract webhooks have the events started, completed and failed (no page events: the answer comes whole)',
  ),
);

/** The `webhook` option of POST /v2/agent. */
export const AgentWebhookOption = webhookOptionOf(
  webhookConfigOf(
    AGENT_WEBHOOK_EVENT_KINDS,
    'Agent webhooks have the events started, action, completed, failed and cancelled',
  ),
);

/** Whether a webhook configuration asks for events of this kind. */
export function webhookWants(config: WebhookConfig, kind: WebhookEventKind): boolean {
  return config.events === undefined || config.events.includes(kind);
}
