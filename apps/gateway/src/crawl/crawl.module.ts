import { Module } from '@nestjs/common';
import { llmConfigFrom, OpenAiCompatibleLlm } from '@wds/llm';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { GenerateCrawlParamsUseCase } from './crawl-params.usecase';
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
  providers: [
    CrawlUseCases,
    CrawlWatchSocket,
    {
      provide: GenerateCrawlParamsUseCase,
      inject: [APP_CONFIG, Messaging, LOGGER],
      useFactory: (c: GatewayConfig, messaging: Messaging, logger: Logger) =>
        new GenerateCrawlParamsUseCase(
          messaging,
          new OpenAiCompatibleLlm(llmConfigFrom(c)),
          logger.child({ component: 'crawl-params' }),
        ),
    },
  ],
})
export class CrawlModule {}
