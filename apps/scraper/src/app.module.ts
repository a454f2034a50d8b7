import { Module } from '@nestjs/common';

/** Root feature module of the scraper service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [],
})
export class AppModule {}
