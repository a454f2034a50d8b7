import { Module } from '@nestjs/common';
import { Database } from '@wds/database';
import { llmConfigFrom, OpenAiCompatibleLlm } from '@wds/llm';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { BrowserPoolConfig } from '../config';
import { BrowserPool } from '../pool/browser-pool';
import type { JobContext } from '../render/job-context';
import { DEFAULT_SPEC, RenderModule } from '../render/render.module';
import { AgentController } from './agent.controller';
import { AgentViews, natsViewServer } from './agent-views';
import { BrowserAgent } from './browser-agent';
import { natsCancelServer, natsStepReporter, RunAgentUseCase } from './run-agent.usecase';
import { ThreadStates } from './thread-states';

/** The browser agent: agent runs in fresh contexts, and the agent for interact prompts (sessions). */
@Module({
  imports: [RenderModule],
  controllers: [AgentController],
  providers: [
    {
      provide: BrowserAgent,
      inject: [APP_CONFIG],
      useFactory: (c: BrowserPoolConfig) => new BrowserAgent(new OpenAiCompatibleLlm(llmConfigFrom(c))),
    },
    {
      provide: AgentViews,
      inject: [LOGGER, Messaging],
      useFactory: (logger: Logger, messaging: Messaging) =>
        new AgentViews(natsViewServer(messaging), logger.child({ component: 'agent-views' })),
    },
    {
      provide: RunAgentUseCase,
      inject: [APP_CONFIG, BrowserPool, BrowserAgent, LOGGER, Messaging, AgentViews, Database],
      useFactory: (
        c: BrowserPoolConfig,
        pool: BrowserPool<JobContext>,
        agent: BrowserAgent,
        logger: Logger,
        messaging: Messaging,
        views: AgentViews,
        db: Database,
      ) =>
        new RunAgentUseCase(
          pool,
          agent,
          { key: DEFAULT_SPEC.key, options: DEFAULT_SPEC.options },
          c.WDS_AGENT_RUNS,
          logger.child({ component: 'agent' }),
          natsCancelServer(messaging),
          natsStepReporter(messaging),
          views,
          Date.now,
          new ThreadStates(db),
        ),
    },
  ],
  exports: [BrowserAgent, AgentViews],
})
export class AgentModule {}
