import { Module } from '@nestjs/common';
import { DeliveryModule } from './delivery/delivery.module';

/** Root feature module of the webhooks service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [DeliveryModule],
})
export class AppModule {}
