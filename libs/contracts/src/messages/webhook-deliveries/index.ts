import { z } from 'zod';
import { WEBHOOK_REQUEUE_IDS_MAX, WebhookDelivery } from '../../api/webhook-deliveries';
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

/**
 * Re-queues a team's given-up (`failed`) deliveries: of one job (or the ones named), or of every
 * job that gave up within [failedSince, failedUntil). Only `teamId`'s own are touched.
 */
export const WebhookDeliveriesRequeueRequest = z.object({
  teamId: z.string().min(1),
  jobId: z.uuid().optional(),
  webhookIds: z.array(z.uuid()).min(1).max(WEBHOOK_REQUEUE_IDS_MAX).optional(),
  failedSince: z.string().optional(),
  failedUntil: z.string().optional(),
});
export type WebhookDeliveriesRequeueRequest = z.output<typeof WebhookDeliveriesRequeueRequest>;

export const WebhookDeliveriesRequeueReply = z.object({
  requeued: z.int().min(0),
  erased: z.int().min(0),
});
export type WebhookDeliveriesRequeueReply = z.output<typeof WebhookDeliveriesRequeueReply>;

export const webhookDeliveriesRequeueRpc = defineRpc(
  'wds.webhooks.v1.deliveries.requeue',
  'webhooks',
  WebhookDeliveriesRequeueRequest,
  WebhookDeliveriesRequeueReply,
);
