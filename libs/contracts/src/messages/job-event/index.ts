import { z } from 'zod';
import { Document } from '../../api/scrape/document';
import { WebhookEvent, webhookJobKind } from '../../api/webhooks/webhook-event';
import { WebhookConfig } from '../../api/webhooks/webhook-config';

/**
 * A job lifecycle event (crawl, batch scrape, extract, agent): the webhook body plus what the
 * deliverer needs to route it. The `data` of crawl and batch scrape events are page documents.
 */
export const JobEvent = WebhookEvent.extend({
  teamId: z.string().min(1),
  /** Absent when the job has no webhook; the event is still recorded. */
  webhook: WebhookConfig.optional(),
  /**
   * Producer-assigned position of the event among its job's events (increasing in emission order,
   * gaps allowed). Orders a job's deliveries within a phase (started < pages < completed/failed);
   * without it, the order of arrival at the webhooks service is used.
   */
  seq: z.number().int().nonnegative().optional(),
  /**
   * The job runs with zero data retention: the webhooks service removes the event from the stream
   * once recorded and erases the stored body once the delivery is final. Never part of the body
   * sent to the receiver. Absent means false.
   */
  zeroDataRetention: z.boolean().optional(),
}).superRefine((event, ctx) => {
  const kind = webhookJobKind(event.type);
  if (kind !== 'crawl' && kind !== 'batch') return;
  event.data.forEach((d, i) => {
    if (!Document.safeParse(d).success) {
      ctx.addIssue({ code: 'custom', path: ['data', i], message: 'not a page document' });
    }
  });
});
export type JobEvent = z.output<typeof JobEvent>;
export type JobEventInput = z.input<typeof JobEvent>;
