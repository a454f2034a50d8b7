import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the browser-pool service: the common variables; its own are added here as features land. */
export const BrowserPoolConfig = CommonEnv.extend({});
export type BrowserPoolConfig = z.output<typeof BrowserPoolConfig>;
