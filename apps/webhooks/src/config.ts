import { CommonEnv } from '@wds/config';
import type { z } from 'zod';
import { webhooksEnvShape } from './delivery/webhooks.env';

/** Environment of the webhooks service: the common variables plus those of the delivery feature. */
export const WebhooksConfig = CommonEnv.extend(webhooksEnvShape);
export type WebhooksConfig = z.output<typeof WebhooksConfig>;
