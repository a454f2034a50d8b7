import { Module } from '@nestjs/common';
import { CrawlModule } from './crawl/crawl.module';

/** Root feature module of the crawler service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [CrawlModule],
})
export class AppModule {}
