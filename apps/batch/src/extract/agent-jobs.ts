import {
  CREDIT_PRICES,
  ErrorCode,
  ServiceError,
  type AgentCreateReply,
  type AgentCreateRequest,
  type Document,
  type ExtractCancelReply,
  type JobRef,
  type PageTask,
} from '@wds/contracts';
import { reportTokens } from '@wds/credits';
import type { JobRow, JobStore, PageDispatcher, PageWork } from '@wds/jobs';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { BatchConfig } from '../config';
import { agentJobOptions, agentOptionsOf, type AgentRecord } from './extract-options';
import { AGENT_KIND, type AgentWorkFactory } from './job-kind.hooks';
import type { ReadExtractUseCase } from './read-extract.usecase';
import { agentRunner, type AgentRunner } from './agent-runner';

/** The agent job's single task (its page key). */
const AGENT_TASK_KEY = 'agent';
const TOKENS_PER_CREDIT = CREDIT_PRICES.tokensPerCredit;
/** An agent job's browser time costs what a session costs once an interact prompt ran in it. */
const AGENT_BROWSER_CREDITS_PER_MINUTE = CREDIT_PRICES.browserSessionPromptPerMinute;
/** Credits held while the agent runs (the charge is settled from the run's cost). */
const AGENT_HOLD_CREDITS = 20;

/**
 * Credits of an agent run: 1 per 15 tokens of its model calls plus 7 per browser minute (prorated
 * by the second), at least 1, never more than the job's `maxCredits`.
 */
export function agentCredits(run: { tokens: number; browserMs: number }, maxCredits: number): number {
  const browser = (Math.ceil(run.browserMs / 1000) * AGENT_BROWSER_CREDITS_PER_MINUTE) / 60;
  const cost = Math.ceil(run.tokens / TOKENS_PER_CREDIT + browser);
  return Math.min(maxCredits, Math.max(1, cost));
}

/**
 * The longest run `maxCredits` pays for in browser time alone (7 credits a minute), within the
 * service's agent timeout: the run is stopped by its deadline once that much time is spent.
 */
export function agentTimeoutMs(maxCredits: number, serviceTimeoutMs: number): number {
  const affordable = Math.floor((maxCredits / AGENT_BROWSER_CREDITS_PER_MINUTE) * 60_000);
  return Math.max(10_000, Math.min(serviceTimeoutMs, affordable));
}

/** What an agent job's create and cancel RPCs (ExtractController) work with. */
export interface AgentJobDeps {
  store: JobStore;
  dispatcher: PageDispatcher;
  read: ReadExtractUseCase;
  retentionMs: number;
}

/**
 * Agent jobs (POST /v2/agent): a job of one task on the batch page pipeline (durable task, credit
 * hold, charge-once key, retries) whose work runs the browser agent in the browser pool from the
 * prompt, the start URLs and the schema, and stores its answer and step log.
 */
export class AgentJobs implements AgentWorkFactory {
  private readonly runner: AgentRunner;

  constructor(
    private readonly messaging: Messaging,
    private readonly logger: Logger,
    private readonly config: BatchConfig,
  ) {
    this.runner = agentRunner(messaging);
  }

  work(job: JobRow, _task: PageTask): PageWork {
    const o = agentOptionsOf(job);
    return {
      estimate: Math.min(o.maxCredits, AGENT_HOLD_CREDITS),
      run: () => this.run(job),
    };
  }

  /** wds.batch.v1.agent.create: records the job and publishes its one task (a retried create finds it). */
  async create(deps: AgentJobDeps, cmd: AgentCreateRequest): Promise<AgentCreateReply> {
    const known = await deps.store.get(cmd.jobId);
    if (known) {
      if (known.teamId !== cmd.teamId || known.kind !== AGENT_KIND) {
        throw new ServiceError(ErrorCode.CONFLICT, 'The agent job id is taken');
      }
      return { id: known.id };
    }
    await deps.store.create({
      id: cmd.jobId,
      teamId: cmd.teamId,
      kind: AGENT_KIND,
      url: cmd.urls[0] ?? `agent:${cmd.jobId}`,
      options: { ...agentJobOptions(cmd), apiKey: cmd.apiKey } as unknown as Record<string, unknown>,
      pageLimit: 1,
      concurrency: 1,
      delayMs: 0,
      zeroDataRetention: cmd.zeroDataRetention,
      retentionMs: deps.retentionMs,
      teamConcurrency: cmd.teamConcurrency,
    });
    const outcome = await deps.store.addPages(
      cmd.jobId,
      [{ urlKey: AGENT_TASK_KEY, url: cmd.urls[0] ?? `agent:${cmd.jobId}`, depth: 0 }],
      { seeded: true },
    );
    await deps.dispatcher.publish(outcome.dispatch);
    return { id: cmd.jobId };
  }

  /** Ends the job as cancelled; a run in progress finishes in the pool and its result is dropped. */
  async cancel(deps: AgentJobDeps, ref: JobRef): Promise<ExtractCancelReply> {
    const job = await deps.read.owned(ref, [AGENT_KIND]);
    if (job.status === 'scraping') await deps.store.end(job.id, 'cancelled');
    const now = await deps.store.get(job.id);
    const status = now?.status ?? job.status;
    return { status: status === 'scraping' ? 'processing' : status };
  }

  private async run(job: JobRow): Promise<{ document: Document; creditsUsed: number }> {
    const o = agentOptionsOf(job);
    const apiKey = (job.options as { apiKey?: string | null }).apiKey ?? null;
    const reply = await this.runner.run({
      teamId: job.teamId,
      jobId: job.id,
      prompt: o.prompt,
      urls: o.urls,
      ...(o.schema ? { schema: o.schema } : {}),
      maxSteps: o.maxSteps,
      timeoutMs: agentTimeoutMs(o.maxCredits, this.config.WDS_AGENT_TIMEOUT_MS),
      ...(o.allowedDomains ? { allowedDomains: o.allowedDomains } : {}),
      zeroDataRetention: job.zeroDataRetention,
    });
    const tokens = reply.tokens.input + reply.tokens.output;
    if (!reply.tokens.estimated && tokens > 0) {
      await reportTokens(this.messaging, {
        eventId: `${job.id}:agent`,
        teamId: job.teamId,
        apiKey,
        endpoint: 'agent',
        jobId: job.id,
        model: reply.model,
        inputTokens: reply.tokens.input,
        outputTokens: reply.tokens.output,
        at: Date.now(),
      }).catch((err: unknown) => this.logger.warn({ err, jobId: job.id }, 'agent token usage not recorded'));
    }
    const creditsUsed = agentCredits({ tokens, browserMs: reply.browserMs }, o.maxCredits);
    const record: AgentRecord = {
      output: reply.output,
      ...(reply.data !== undefined ? { data: reply.data } : {}),
      steps: reply.steps.map((s) => ({
        action: s.action,
        ...(s.target ? { target: s.target } : {}),
        outcome: s.detail ? `${s.outcome}: ${s.detail}` : s.outcome,
      })),
      tokensUsed: tokens,
      browserMs: reply.browserMs,
      finalUrl: reply.finalUrl,
      stopReason: reply.status,
    };
    if (reply.status !== 'completed' || (o.schema && reply.data === undefined)) {
      // The page is failed with the reason; its record is kept in the error for the status answer.
      throw new ServiceError(
        ErrorCode.UPSTREAM_FAILED,
        agentFailure(reply.status, reply.output, !!o.schema),
        {
          creditsUsed,
        },
      );
    }
    return { document: record as unknown as Document, creditsUsed };
  }
}

function agentFailure(status: string, output: string, withSchema: boolean): string {
  switch (status) {
    case 'max_steps':
      return `The agent reached its step limit without an answer: ${output}`;
    case 'timeout':
      return `The agent ran out of time (or of maxCredits) without an answer: ${output}`;
    case 'max_tokens':
      return `The agent reached maxCredits without an answer: ${output}`;
    case 'completed':
      return withSchema
        ? `The agent answered, but not with data matching the schema: ${output}`
        : `The agent failed: ${output}`;
    default:
      return `The agent failed: ${output}`;
  }
}
