import { z } from 'zod';

/** Give back a reservation whose work failed before anything billable happened. */
export const CreditsReleaseRequest = z.object({ reservationId: z.string().min(1) });
export type CreditsReleaseRequest = z.output<typeof CreditsReleaseRequest>;

export const CreditsReleaseReply = z.object({ balance: z.number() });
export type CreditsReleaseReply = z.output<typeof CreditsReleaseReply>;
