import { z } from 'zod';
import { WebhookEventType } from '../webhooks/webhook-event';

/** GET /v2/webhooks/deliveries query (our extension: the delivery log of one job). */
export const WebhookDeliveriesQuery = z.object({
  jobId: z.uuid().describe('Crawl or batch scrape job id'),
  limit: z.coerce.number<string | number>().int().min(1).max(1000).default(100),
  cursor: z.string().min(1).max(200).optional().describe('`nextCursor` of the previous page'),
});
export type WebhookDeliveriesQuery = z.output<typeof WebhookDeliveriesQuery>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const WebhookDeliveryStatus = z.enum(WEBHOOK_DELIVERY_STATUSES);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

/** One HTTP attempt of a delivery. */
export const WebhookDeliveryAttempt = z.object({
  attempt: z.number().int().min(1),
  at: z.string().describe('When the attempt ended (ISO 8601)'),
  statusCode: z.number().int().nullable().describe('HTTP status of the answer; null when none came'),
  error: z.string().nullable().describe('Why the attempt failed; null when it succeeded'),
  durationMs: z.number().int().nonnegative(),
});
export type WebhookDeliveryAttempt = z.output<typeof WebhookDeliveryAttempt>;

export const WebhookDelivery = z.object({
  webhookId: z.uuid(),
  type: WebhookEventType,
  url: z.string(),
  status: WebhookDeliveryStatus.describe('pending (waiting or retrying), delivered (2xx), failed (gave up)'),
  attempts: z.number().int().nonnegative(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable().describe('Only while pending'),
  history: z.array(WebhookDeliveryAttempt).describe('Every attempt, oldest first'),
});
export type WebhookDelivery = z.output<typeof WebhookDelivery>;

export const WebhookDeliveriesResponse = z.object({
  success: z.literal(true),
  deliveries: z.array(WebhookDelivery).describe("The job's deliveries in delivery order"),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});
export type WebhookDeliveriesResponse = z.output<typeof WebhookDeliveriesResponse>;

/** Deliveries one re-queue names at most. */
export const WEBHOOK_REQUEUE_IDS_MAX = 1000;

/**
 * POST /v2/webhooks/deliveries/resend (our extension): the job's given-up (`failed`) deliveries, or
 * the ones named, are sent again, each with the whole schedule anew.
 */
export const WebhookRequeueRequest = z.strictObject({
  jobId: z.uuid().describe('Crawl, batch scrape, extract or agent job id'),
  webhookIds: z
    .array(z.uuid())
    .min(1)
    .max(WEBHOOK_REQUEUE_IDS_MAX)
    .optional()
    .describe('Only these deliveries (each must be failed); absent: every failed delivery of the job'),
});
export type WebhookRequeueRequest = z.output<typeof WebhookRequeueRequest>;

export const WebhookRequeueResponse = z.object({
  success: z.literal(true),
  requeued: z.int().min(0).describe('Failed deliveries now pending again, due at once'),
  erased: z
    .int()
    .min(0)
    .describe('Failed deliveries that cannot be sent again: zero data retention erased their body'),
});
export type WebhookRequeueResponse = z.output<typeof WebhookRequeueResponse>;
