import { CommonEnv } from '@wds/config';
import type { z } from 'zod';

/** Environment of the webhooks service: the common variables; its own are added here as features land. */
export const WebhooksConfig = CommonEnv.extend({});
export type WebhooksConfig = z.output<typeof WebhooksConfig>;
