import { compileSchema, LlmError } from '@wds/llm';
import {
  agentCancelRpc,
  ErrorCode,
  ServiceError,
  type AgentRunReply,
  type AgentRunRequest,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { BrowserContextOptions } from 'playwright-core';
import type { BrowserPool } from '../pool/browser-pool';
import type { JobContext } from '../render/job-context';
import type { BrowserAgent } from './browser-agent';

/** Beyond the run's deadline: closing the context, the reply. */
const CLOSE_MARGIN_MS = 10_000;

export interface AgentContextSpec {
  key?: string;
  options: BrowserContextOptions;
}

/** Serves a run's cancel subject while it lasts; the returned function stops serving it. */
export type CancelServer = (jobId: string, cancel: () => boolean) => () => void;

/** The cancel subject of a run on NATS (agentCancelRpc): any replica of the caller can stop it. */
export function natsCancelServer(messaging: Messaging): CancelServer {
  return (jobId, cancel) => messaging.serve(agentCancelRpc(jobId), async () => ({ stopped: cancel() }));
}

/**
 * wds.browser-pool.v1.agent.run: the agent in a fresh context of the render pool (network policy on
 * every request by its route guard and policy proxy, ad/tracker blocking), at most WDS_AGENT_RUNS at
 * once per replica; the context is closed when the run ends, whatever ended it. While it runs, the
 * run's cancel subject (agentCancelRpc) aborts it: the loop stops before its next step (the model
 * call in flight is aborted) and the reply says `cancelled` with the tokens and browser time spent.
 */
export class RunAgentUseCase {
  private running = 0;

  constructor(
    private readonly pool: BrowserPool<JobContext>,
    private readonly agent: BrowserAgent,
    private readonly spec: AgentContextSpec,
    private readonly capacity: number,
    private readonly logger: Logger,
    private readonly serveCancel: CancelServer,
    private readonly now: () => number = Date.now,
  ) {}

  async execute(req: AgentRunRequest): Promise<AgentRunReply> {
    this.agent.requireLlm();
    if (req.schema) {
      try {
        compileSchema(req.schema);
      } catch (err) {
        throw new ServiceError(ErrorCode.BAD_REQUEST, `schema: ${(err as Error).message}`, {
          field: 'schema',
        });
      }
    }
    if (this.running >= this.capacity) {
      throw new ServiceError(
        ErrorCode.CONCURRENCY_LIMITED,
        'Every agent slot of this browser-pool replica is busy',
        { reason: 'capacity' },
        1,
      );
    }
    this.running++;
    const abort = new AbortController();
    const stopServing = this.serveCancel(req.jobId, () => {
      const was = !abort.signal.aborted;
      abort.abort();
      if (was) this.logger.info({ jobId: req.jobId, teamId: req.teamId }, 'agent run cancelled');
      return true;
    });
    try {
      const started = this.now();
      const deadline = started + req.timeoutMs;
      const { result, browserMs } = await this.pool.run(
        { key: this.spec.key, options: this.spec.options, deadline: deadline + CLOSE_MARGIN_MS },
        async (job) => {
          // The context's route guard refuses everything until bound: the agent's pages get the
          // network policy and ad/tracker blocking on every request.
          job.guard.bind({ blockAds: true, blocked: { policy: 0, ads: 0 } });
          const t0 = this.now();
          const result = await this.agent.run(job.page, {
            task: req.prompt,
            schema: req.schema,
            maxSteps: req.maxSteps,
            deadline,
            policy: { allowedDomains: req.allowedDomains },
            startUrls: req.urls,
            maxTokens: req.maxTokens,
            signal: abort.signal,
          });
          return { result, browserMs: Math.max(0, Math.round(this.now() - t0)) };
        },
      );
      this.logger.info(
        {
          jobId: req.jobId,
          teamId: req.teamId,
          status: result.status,
          steps: result.steps.length,
          tokens: result.usage.totalTokens,
          ms: this.now() - started,
        },
        'agent run finished',
      );
      return {
        status: result.status,
        output: result.output,
        ...(result.data !== undefined ? { data: result.data } : {}),
        steps: result.steps,
        tokens: {
          input: result.usage.promptTokens,
          output: result.usage.completionTokens,
          estimated: result.usage.estimated,
        },
        model: result.model,
        browserMs,
        finalUrl: result.finalUrl,
        finalSnapshot: result.finalSnapshot,
        warnings: result.warnings,
      };
    } catch (err) {
      if (err instanceof LlmError && err.kind === 'invalid_schema')
        throw new ServiceError(ErrorCode.BAD_REQUEST, `schema: ${err.message}`, { field: 'schema' });
      throw err;
    } finally {
      stopServing();
      this.running--;
    }
  }
}
