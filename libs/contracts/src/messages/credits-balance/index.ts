import { z } from 'zod';

export const CreditsBalanceRequest = z.object({ teamId: z.string().min(1) });
export type CreditsBalanceRequest = z.output<typeof CreditsBalanceRequest>;

export const CreditsBalanceReply = z.object({ balance: z.number() });
export type CreditsBalanceReply = z.output<typeof CreditsBalanceReply>;
