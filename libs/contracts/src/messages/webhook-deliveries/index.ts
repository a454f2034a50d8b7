import { z } from 'zod';
import { WebhookDelivery } from '../../api/webhook-deliveries';
import { defineRpc } from '../define';

/** The delivery log of one job, only if it belongs to `teamId` (else an empty list). */
export const WebhookDeliveriesListRequest = z.object({
  teamId: z.string().min(1),
  jobId: z.uuid(),
  limit: z.number().int().min(1).max(1000),
  cursor: z.string().min(1).max(200).optional(),
});
export type WebhookDeliveriesListRequest = z.output<typeof WebhookDeliveriesListRequest>;

export const WebhookDeliveriesListReply = z.object({
  deliveries: z.array(WebhookDelivery),
  nextCursor: z.string().nullable(),
});
export type WebhookDeliveriesListReply = z.output<typeof WebhookDeliveriesListReply>;

export const webhookDeliveriesListRpc = defineRpc(
  'wds.webhooks.v1.deliveries.list',
  'webhooks',
  WebhookDeliveriesListRequest,
  WebhookDeliveriesListReply,
);
