import { Module } from '@nestjs/common';
import { ScrapeModule } from './scrape/scrape.module';

/** Root feature module of the scraper service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [ScrapeModule],
})
export class AppModule {}
