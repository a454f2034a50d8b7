import { z } from 'zod';
import { defineRpc } from '../define';

/** The HMAC secret signing a team's webhook deliveries (served by the gateway, which owns teams). */
export const WebhookSecretRequest = z.object({ teamId: z.string().min(1) });
export type WebhookSecretRequest = z.output<typeof WebhookSecretRequest>;

/** null: the team has no secret (deliveries go unsigned) or does not exist. */
export const WebhookSecretReply = z.object({ secret: z.string().min(1).nullable() });
export type WebhookSecretReply = z.output<typeof WebhookSecretReply>;

export const webhookSecretRpc = defineRpc(
  'wds.gateway.v1.teams.webhook-secret',
  'gateway',
  WebhookSecretRequest,
  WebhookSecretReply,
);
