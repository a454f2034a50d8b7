import { z } from 'zod';

/** Add (or, negative, remove) credits; the idempotencyKey makes a retried grant count once. */
export const CreditsGrantRequest = z.object({
  teamId: z.string().min(1),
  amount: z.number(),
  reason: z.string().min(1),
  idempotencyKey: z.string().min(1),
});
export type CreditsGrantRequest = z.output<typeof CreditsGrantRequest>;

export const CreditsGrantReply = z.object({ balance: z.number() });
export type CreditsGrantReply = z.output<typeof CreditsGrantReply>;
