import { z } from 'zod';

/** Charge the actual cost of a reservation (may be less or more than reserved) and close it (see credits-reserve). */
export const CreditsSettleRequest = z.object({ reservationId: z.string().min(1), actual: z.number().min(0) });
export type CreditsSettleRequest = z.output<typeof CreditsSettleRequest>;

export const CreditsSettleReply = z.object({ balance: z.number(), charged: z.number() });
export type CreditsSettleReply = z.output<typeof CreditsSettleReply>;
