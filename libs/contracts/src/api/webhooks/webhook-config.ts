import { z } from 'zod';
import { HttpUrl } from '../common/url';
import { HttpHeaders } from '../common/http-headers';

/** Job lifecycle moments a webhook can subscribe to. */
export const WEBHOOK_EVENT_KINDS = ['started', 'page', 'completed', 'failed'] as const;
export const WebhookEventKind = z.enum(WEBHOOK_EVENT_KINDS);
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

export const WebhookConfig = z.strictObject({
  url: HttpUrl,
  headers: HttpHeaders.optional().describe('Extra headers sent with every delivery (RFC 9110 names and values)'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Echoed as `metadata` in every delivery of this job'),
  events: z.array(WebhookEventKind).min(1).optional().describe('Events to deliver; all of them when absent'),
});
export type WebhookConfig = z.output<typeof WebhookConfig>;
export type WebhookConfigInput = z.input<typeof WebhookConfig>;

/** The `webhook` option of crawl and batch scrape: a bare URL is shorthand for `{url}`. */
export const WebhookOption = z.union([HttpUrl.transform((url): WebhookConfig => ({ url })), WebhookConfig]);
export type WebhookOption = z.output<typeof WebhookOption>;
export type WebhookOptionInput = z.input<typeof WebhookOption>;

/** Whether a webhook configuration asks for events of this kind. */
export function webhookWants(config: WebhookConfig, kind: WebhookEventKind): boolean {
  return config.events === undefined || config.events.includes(kind);
}
