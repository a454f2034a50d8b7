import { Module } from '@nestjs/common';

/** Root feature module of the batch service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [],
})
export class AppModule {}
