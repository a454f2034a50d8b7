import { z } from 'zod';
import { ActivityEndpoint } from '../../api/team/team';

/**
 * Credit blocks: a replica (gateway, crawler, batch) holds a block of a team's credits and spends it
 * locally, reporting what each request cost in batches, instead of two billing calls per request.
 * The block is a reservation of kind "block": its credits leave the balance when it is taken and
 * whatever was not reported as used comes back when it is closed (or when it expires because its
 * holder died). Usage is idempotent per (team, key), so a retried request is charged once.
 */
export const CreditsBlockTakeRequest = z.object({
  teamId: z.string().min(1),
  /** Credits wanted; billing may grant fewer (never fewer than `minimum`). */
  amount: z.number().int().positive(),
  /** The request that needs the block costs this much: below it the answer is INSUFFICIENT_CREDITS. */
  minimum: z.number().int().positive(),
  /** Who holds it (service and instance), for the journal and for operators. */
  holder: z.string().min(1).max(200),
});
export type CreditsBlockTakeRequest = z.output<typeof CreditsBlockTakeRequest>;

export const CreditsBlockTakeReply = z.object({
  reservationId: z.string(),
  /** Credits in the block. */
  granted: z.number(),
  /** The team's balance after the block left it. */
  balance: z.number(),
  /** The block expires unless a report renews it before this instant (epoch ms). */
  expiresAt: z.number(),
});
export type CreditsBlockTakeReply = z.output<typeof CreditsBlockTakeReply>;

export const CreditUsage = z.object({
  /** Idempotency key of the charged work (`idem:<Idempotency-Key>`, `req:<request id>`, `page:<job>:<n>`). */
  key: z.string().min(1).max(300),
  amount: z.number().int().min(0),
  endpoint: ActivityEndpoint,
  /**
   * Public lookup prefix of the API key the work was done for (usage per key). Page usage of a job
   * (`<kind>:<job id>:<page>`) may leave it out: billing attributes it from the job's activity event.
   */
  apiKey: z.string().min(1).max(64).optional(),
});
export type CreditUsage = z.output<typeof CreditUsage>;

export const CreditsUsageReportRequest = z.object({
  reservationId: z.string().min(1),
  usage: z.array(CreditUsage).max(5000),
  /** Close the block after recording: what was not used goes back to the balance. */
  close: z.boolean().default(false),
});
export type CreditsUsageReportRequest = z.output<typeof CreditsUsageReportRequest>;

export const CreditsUsageReportReply = z.object({
  /** Credits recorded by this call (usage already recorded under the same key counts 0). */
  recorded: z.number(),
  /** Total recorded against the block so far. */
  used: z.number(),
  /** The block is still open (false after `close`, or when it had expired and was settled). */
  open: z.boolean(),
  expiresAt: z.number(),
});
export type CreditsUsageReportReply = z.output<typeof CreditsUsageReportReply>;
