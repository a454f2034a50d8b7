import { Module } from '@nestjs/common';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookSecretServer } from './webhook-secret.server';

/** The gateway's part of webhooks: team secrets for the webhooks service, the delivery log for teams. */
@Module({
  controllers: [WebhookDeliveriesController, WebhookSecretServer],
})
export class WebhooksModule {}
