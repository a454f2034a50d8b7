import { z } from 'zod';
import { ActivityEndpoint } from '../../api/team/team';

/** Hold credits before work starts so a team cannot overspend with concurrent requests. */
export const CreditsReserveRequest = z.object({
  teamId: z.string().min(1),
  /** Idempotency key: a repeated reserve with the same requestId returns the same reservation. */
  requestId: z.string().min(1),
  amount: z.number().positive(),
  endpoint: ActivityEndpoint,
});
export type CreditsReserveRequest = z.output<typeof CreditsReserveRequest>;

export const CreditsReserveReply = z.object({ reservationId: z.string(), balance: z.number() });
export type CreditsReserveReply = z.output<typeof CreditsReserveReply>;
