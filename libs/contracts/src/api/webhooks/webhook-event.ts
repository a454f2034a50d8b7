import { z } from 'zod';
import { Document } from '../scrape/document';
import type { WebhookEventKind } from './webhook-config';

export const WEBHOOK_EVENT_TYPES = [
  'crawl.started',
  'crawl.page',
  'crawl.completed',
  'crawl.failed',
  'batch_scrape.started',
  'batch_scrape.page',
  'batch_scrape.completed',
  'batch_scrape.failed',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Header carrying `sha256=<hex>` HMAC of the raw body when the team has a webhook secret. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Service-Signature';

/** Body POSTed to the caller's webhook endpoint. */
export const WebhookEvent = z.object({
  success: z.boolean(),
  type: WebhookEventType,
  id: z.uuid().describe('Job id'),
  webhookId: z.uuid().describe('Unique per delivery, identical on retries'),
  data: z.array(Document),
  metadata: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional().describe('Only on page events for a page that failed'),
});
export type WebhookEvent = z.output<typeof WebhookEvent>;

export function webhookEventKind(type: WebhookEventType): WebhookEventKind {
  return type.slice(type.indexOf('.') + 1) as WebhookEventKind;
}

export function webhookEventType(jobKind: 'crawl' | 'batch', kind: WebhookEventKind): WebhookEventType {
  return `${jobKind === 'crawl' ? 'crawl' : 'batch_scrape'}.${kind}`;
}
