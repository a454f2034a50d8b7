import { z } from 'zod';
import { ActivityEndpoint } from '../../api/team/team';

/** Hold credits before work starts so a team cannot overspend with concurrent requests. */
export const CreditsReserveRequest = z.object({
  teamId: z.string().min(1),
  /** Idempotency key: a repeated reserve with the same requestId returns the same reservation. */
  requestId: z.string().min(1),
  amount: z.number().positive(),
  endpoint: ActivityEndpoint,
  /** How long the hold lives without settle/release (default: billing's 30 minutes); browser sessions hold for their ttl. */
  ttlMs: z
    .int()
    .min(1000)
    .max(24 * 3600_000)
    .optional(),
});
export type CreditsReserveRequest = z.output<typeof CreditsReserveRequest>;

export const CreditsReserveReply = z.object({ reservationId: z.string(), balance: z.number() });
export type CreditsReserveReply = z.output<typeof CreditsReserveReply>;
