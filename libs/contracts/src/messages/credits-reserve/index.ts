import { z } from 'zod';
import { ActivityEndpoint } from '../../api/team/team';

/**
 * A reservation: credits held for one long-running piece of work until it is settled at its actual
 * cost (today a browser session, held for its whole ttl: apps/browser-pool SessionBilling). Ordinary
 * requests and job pages do not reserve: they hold from a credit block (`@wds/credits`, ADR 0005).
 * Unsettled reservations are released by billing's sweeper when they expire.
 */
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
