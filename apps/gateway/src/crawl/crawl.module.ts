import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CreditsModule } from '../credits/credits.module';
import { CrawlController } from './crawl.controller';
import { CrawlUseCases } from './crawl.usecases';
import { CrawlWatchSocket } from './crawl-watch.socket';
import { MapController } from './map.controller';

/** The crawl endpoints, the crawl WebSocket watcher and POST /v2/map, served by the crawler service. */
@Module({
  imports: [CreditsModule, AuthModule],
  controllers: [CrawlController, MapController],
  providers: [CrawlUseCases, CrawlWatchSocket],
})
export class CrawlModule {}
