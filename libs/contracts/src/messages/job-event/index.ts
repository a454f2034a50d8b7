import { z } from 'zod';
import { WebhookEvent } from '../../api/webhooks/webhook-event';
import { WebhookConfig } from '../../api/webhooks/webhook-config';

/** A crawl/batch lifecycle event: the webhook body plus what the deliverer needs to route it. */
export const JobEvent = WebhookEvent.extend({
  teamId: z.string().min(1),
  /** Absent when the job has no webhook; the event is still recorded. */
  webhook: WebhookConfig.optional(),
});
export type JobEvent = z.output<typeof JobEvent>;
export type JobEventInput = z.input<typeof JobEvent>;
