import { Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { BROWSER_AGENT_RPC } from '@wds/contracts';
import { llmConfigFrom, OpenAiCompatibleLlm } from '@wds/llm';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { BrowserPoolConfig } from '../config';
import { BrowserPool } from '../pool/browser-pool';
import type { JobContext } from '../render/job-context';
import { DEFAULT_SPEC, RenderModule } from '../render/render.module';
import { BrowserAgent } from './browser-agent';
import { RunAgentUseCase } from './run-agent.usecase';

/** Serves wds.browser-pool.v1.agent.run (queue group browser-pool) when the replica takes agent runs. */
@Injectable()
export class AgentServer implements OnApplicationBootstrap {
  constructor(
    private readonly messaging: Messaging,
    private readonly runs: RunAgentUseCase,
    @Inject(APP_CONFIG) private readonly config: BrowserPoolConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WDS_AGENT_RUNS > 0)
      this.messaging.serve(BROWSER_AGENT_RPC.run, (req) => this.runs.execute(req));
  }
}

/** The browser agent: agent runs in fresh contexts, and the agent for interact prompts (sessions). */
@Module({
  imports: [RenderModule],
  providers: [
    {
      provide: BrowserAgent,
      inject: [APP_CONFIG],
      useFactory: (c: BrowserPoolConfig) => new BrowserAgent(new OpenAiCompatibleLlm(llmConfigFrom(c))),
    },
    {
      provide: RunAgentUseCase,
      inject: [APP_CONFIG, BrowserPool, BrowserAgent, LOGGER],
      useFactory: (
        c: BrowserPoolConfig,
        pool: BrowserPool<JobContext>,
        agent: BrowserAgent,
        logger: Logger,
      ) =>
        new RunAgentUseCase(
          pool,
          agent,
          { key: DEFAULT_SPEC.key, options: DEFAULT_SPEC.options },
          c.WDS_AGENT_RUNS,
          logger.child({ component: 'agent' }),
        ),
    },
    AgentServer,
  ],
  exports: [BrowserAgent],
})
export class AgentModule {}
