import { Module } from '@nestjs/common';
import type { LlmPort } from '@wds/llm';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { CreditsModule } from '../credits/credits.module';
import { GATEWAY_LLM, GatewayLlmModule } from '../llm/llm.module';
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
  imports: [CreditsModule, SearchModule, GatewayLlmModule],
  controllers: [ExtractController, AgentController, AgentLiveViewController],
  providers: [
    ExtractUseCases,
    AgentLiveViewSocket,
    {
      provide: ExtractWebSearch,
      inject: [SearchWebUseCase, GATEWAY_LLM, Messaging, LOGGER],
      useFactory: (search: SearchWebUseCase, llm: LlmPort, messaging: Messaging, logger: Logger) =>
        new ExtractWebSearch(search, llm, messaging, logger.child({ component: 'extract-search' })),
    },
  ],
})
export class ExtractModule {}
