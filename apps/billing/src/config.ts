import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the billing service: the common variables; its own are added here as features land. */
export const BillingConfig = CommonEnv.extend({});
export type BillingConfig = z.output<typeof BillingConfig>;
