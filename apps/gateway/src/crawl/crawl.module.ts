import { Module } from '@nestjs/common';
import type { LlmPort } from '@wds/llm';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { GenerateCrawlParamsUseCase } from './crawl-params.usecase';
import { AuthModule } from '../auth/auth.module';
import { CreditsModule } from '../credits/credits.module';
import { GATEWAY_LLM, GatewayLlmModule } from '../llm/llm.module';
import { CrawlController } from './crawl.controller';
import { CrawlUseCases } from './crawl.usecases';
import { CrawlWatchSocket } from './crawl-watch.socket';
import { MapController } from './map.controller';

/** The crawl endpoints, the crawl WebSocket watcher and POST /v2/map, served by the crawler service. */
@Module({
  imports: [CreditsModule, AuthModule, GatewayLlmModule],
  controllers: [CrawlController, MapController],
  providers: [
    CrawlUseCases,
    CrawlWatchSocket,
    {
      provide: GenerateCrawlParamsUseCase,
      inject: [Messaging, GATEWAY_LLM, LOGGER],
      useFactory: (messaging: Messaging, llm: LlmPort, logger: Logger) =>
        new GenerateCrawlParamsUseCase(messaging, llm, logger.child({ component: 'crawl-params' })),
    },
  ],
})
export class CrawlModule {}
