import { Module } from '@nestjs/common';
import { llmConfigFrom, OpenAiCompatibleLlm } from '@wds/llm';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { CreditsModule } from '../credits/credits.module';
import { SearchModule } from '../search/search.module';
import { SearchWebUseCase } from '../search/search-web.usecase';
import { AgentLiveViewController, AgentLiveViewSocket } from './agent-live-view';
import { AgentController, ExtractController } from './extract.controller';
import { ExtractWebSearch } from './extract-web-search';
import { ExtractUseCases } from './extract.usecases';

/**
 * Extract and agent jobs, run by the batch service; the live views of running agents (browser
 * pool); the web search that finds an extract job's pages when it names none.
 */
@Module({
  imports: [CreditsModule, SearchModule],
  controllers: [ExtractController, AgentController, AgentLiveViewController],
  providers: [
    ExtractUseCases,
    AgentLiveViewSocket,
    {
      provide: ExtractWebSearch,
      inject: [SearchWebUseCase, APP_CONFIG, Messaging, LOGGER],
      useFactory: (search: SearchWebUseCase, c: GatewayConfig, messaging: Messaging, logger: Logger) =>
        new ExtractWebSearch(
          search,
          new OpenAiCompatibleLlm(llmConfigFrom(c)),
          messaging,
          logger.child({ component: 'extract-search' }),
        ),
    },
  ],
})
export class ExtractModule {}
