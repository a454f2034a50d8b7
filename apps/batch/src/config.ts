import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the batch service: the common variables; its own are added here as features land. */
export const BatchConfig = CommonEnv.extend({});
export type BatchConfig = z.output<typeof BatchConfig>;
