import { randomUUID } from 'node:crypto';
import {
  agentStepRpc,
  CREDIT_PRICES,
  ErrorCode,
  ServiceError,
  type AgentStep,
  type AgentCreateReply,
  type AgentCreateRequest,
  type Document,
  type ExtractCancelReply,
  type JobRef,
  type PageTask,
} from '@wds/contracts';
import { reportTokens } from '@wds/credits';
import type { JobEvents, JobRow, JobStore, PageDispatcher, PageWork, PageWorkResult } from '@wds/jobs';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { BatchConfig } from '../config';
import { continueFrom, threadContext, threadTask, type EarlierTurn } from './agent-thread';
import {
  agentJobOptions,
  agentOptionsOf,
  statusStep,
  type AgentJobOptions,
  type AgentRecord,
} from './extract-options';
import { AGENT_KIND, AGENT_TASK_KEY, type AgentWorkFactory } from './job-kind.hooks';
import type { ReadExtractUseCase } from './read-extract.usecase';
import type { AgentLog } from './agent-log';
import { agentRunner, type AgentRunner } from './agent-runner';

const TOKENS_PER_CREDIT = CREDIT_PRICES.tokensPerCredit;
/** An agent job's browser time costs what a session costs once an interact prompt ran in it. */
const AGENT_BROWSER_CREDITS_PER_MINUTE = CREDIT_PRICES.browserSessionPromptPerMinute;
/** Credits held while the agent runs (the charge is settled from the run's cost). */
const AGENT_HOLD_CREDITS = 20;
/** How often the worker running an agent job looks whether the job was cancelled. */
const CANCEL_POLL_MS = 1000;

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
 * Token budget of a run: the tokens `maxCredits` buys at 15 per credit (the charge, tokens plus
 * browser time, is capped at maxCredits as well; the run's deadline bounds the browser time).
 */
export function agentMaxTokens(maxCredits: number): number {
  return Math.max(1, Math.floor(maxCredits * TOKENS_PER_CREDIT));
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
  events: JobEvents;
  read: ReadExtractUseCase;
  /** The agent log (the jobs' threads). */
  log: AgentLog;
  retentionMs: number;
}

/**
 * Agent jobs (POST /v2/agent): a job of one task on the batch page pipeline (durable task, credit
 * hold, charge-once key, retries) whose work runs the browser agent in the browser pool from the
 * prompt, the start URLs and the schema, and stores its answer and step log.
 */
export class AgentJobs implements AgentWorkFactory {
  private readonly runner: AgentRunner;
  private store: JobStore | undefined;
  private events: JobEvents | undefined;
  private log: AgentLog | undefined;

  constructor(
    private readonly messaging: Messaging,
    private readonly logger: Logger,
    private readonly config: BatchConfig,
    runner?: AgentRunner,
  ) {
    this.runner = runner ?? agentRunner(messaging);
  }

  /**
   * The service runtime's job store (the waiting worker looks there for a cancelled job), its job
   * events (each step's `action` event) and the agent log (the steps as they come).
   */
  attach(store: JobStore, events?: JobEvents, log?: AgentLog): void {
    this.store = store;
    this.events = events;
    this.log = log;
  }

  work(job: JobRow, _task: PageTask): PageWork {
    const o = agentOptionsOf(job);
    return {
      estimate: Math.min(o.maxCredits, AGENT_HOLD_CREDITS),
      run: () => this.run(job),
    };
  }

  /**
   * wds.batch.v1.agent.create: records the job and publishes its one task (a retried create finds
   * it). The job starts a thread, or takes the next turn of the one it names: it is then told the
   * earlier turns, and starts where the last one ended when it has no URLs of its own.
   * Zero-data-retention jobs keep no thread.
   */
  async create(deps: AgentJobDeps, cmd: AgentCreateRequest): Promise<AgentCreateReply> {
    const known = await deps.store.get(cmd.jobId);
    if (known) {
      if (known.teamId !== cmd.teamId || known.kind !== AGENT_KIND) {
        throw new ServiceError(ErrorCode.CONFLICT, 'The agent job id is taken');
      }
      return { id: known.id, ...threadOf(agentOptionsOf(known)) };
    }
    let thread: Pick<AgentJobOptions, 'threadId' | 'threadTurn' | 'context'> = {};
    let urls = cmd.urls;
    if (cmd.threadId && !cmd.zeroDataRetention) {
      const turn = await deps.log.continueThread(cmd.teamId, cmd.threadId, cmd.jobId);
      const earlier = await this.earlierTurns(deps, cmd.teamId, cmd.threadId, turn);
      const context = threadContext(earlier);
      const from = continueFrom(earlier);
      if (urls.length === 0 && from) urls = [from];
      thread = { threadId: cmd.threadId, threadTurn: turn, ...(context ? { context } : {}) };
    } else if (!cmd.zeroDataRetention) {
      const opened = await deps.log.openThread(cmd.teamId, cmd.jobId, deps.retentionMs);
      thread = { threadId: opened.threadId, threadTurn: opened.turn };
    }
    const options: AgentJobOptions = { ...agentJobOptions({ ...cmd, urls }), ...thread };
    await deps.store.create({
      id: cmd.jobId,
      teamId: cmd.teamId,
      kind: AGENT_KIND,
      url: urls[0] ?? `agent:${cmd.jobId}`,
      options: { ...options, apiKey: cmd.apiKey } as unknown as Record<string, unknown>,
      pageLimit: 1,
      concurrency: 1,
      delayMs: 0,
      zeroDataRetention: cmd.zeroDataRetention,
      retentionMs: deps.retentionMs,
      teamConcurrency: cmd.teamConcurrency,
      webhook: cmd.webhook as Record<string, unknown> | undefined,
    });
    const job = await deps.store.get(cmd.jobId);
    if (job && !job.seeded) await deps.events.lifecycle(job, 'started');
    const outcome = await deps.store.addPages(
      cmd.jobId,
      [{ urlKey: AGENT_TASK_KEY, url: urls[0] ?? `agent:${cmd.jobId}`, depth: 0 }],
      { seeded: true },
    );
    await deps.dispatcher.publish(outcome.dispatch);
    return { id: cmd.jobId, ...threadOf(options) };
  }

  /** The thread's turns before `turn`, each with how its run ended (as its status tells it). */
  private async earlierTurns(
    deps: AgentJobDeps,
    teamId: string,
    threadId: string,
    turn: number,
  ): Promise<EarlierTurn[]> {
    const runs = (await deps.log.threadRuns(teamId, threadId)).filter(
      (r) => (agentOptionsOf(r).threadTurn ?? 0) < turn,
    );
    return Promise.all(
      runs.map(async (r) => ({
        turn: agentOptionsOf(r).threadTurn ?? 0,
        prompt: agentOptionsOf(r).prompt,
        state: await deps.read.agentStateOf(r),
      })),
    );
  }

  /**
   * Ends the job as cancelled and stops its run in progress: the replica running it is asked at
   * once through the run's cancel subject, and the worker waiting for the run asks again when it
   * sees the job ended (it looks every second), so a run that starts right after is stopped too.
   * The run replies `cancelled` with what it spent, which is what is charged.
   */
  async cancel(deps: AgentJobDeps, ref: JobRef): Promise<ExtractCancelReply> {
    const job = await deps.read.owned(ref, [AGENT_KIND]);
    if (job.status === 'scraping' && (await deps.store.end(job.id, 'cancelled'))) {
      void this.runner.cancel(job.id);
      await deps.events.lifecycle(job, 'cancelled');
    }
    const now = await deps.store.get(job.id);
    const status = now?.status ?? job.status;
    return { status: status === 'scraping' ? 'processing' : status };
  }

  private async run(job: JobRow): Promise<PageWorkResult> {
    const o = agentOptionsOf(job);
    const apiKey = (job.options as { apiKey?: string | null }).apiKey ?? null;
    const runId = randomUUID();
    const steps = await this.liveSteps(job, runId);
    const stopWatching = this.watchCancel(job.id);
    const reply = await this.runner
      .run({
        teamId: job.teamId,
        jobId: job.id,
        prompt: threadTask(o.context, o.prompt),
        urls: o.urls,
        ...(o.schema ? { schema: o.schema } : {}),
        maxSteps: o.maxSteps,
        timeoutMs: agentTimeoutMs(o.maxCredits, this.config.WDS_AGENT_TIMEOUT_MS),
        ...(o.allowedDomains ? { allowedDomains: o.allowedDomains } : {}),
        zeroDataRetention: job.zeroDataRetention,
        maxTokens: agentMaxTokens(o.maxCredits),
        stepsTo: runId,
        ...(o.threadId && !job.zeroDataRetention
          ? { threadState: { threadId: o.threadId, expiresAt: job.expiresAt.toISOString() } }
          : {}),
      })
      .finally(() => {
        stopWatching();
        steps.stop();
      });
    // Steps whose report was lost (or came after the reply) are recorded and sent now.
    await steps.settle(reply.steps);
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
      steps: reply.steps.map(statusStep),
      tokensUsed: tokens,
      browserMs: reply.browserMs,
      finalUrl: reply.finalUrl,
      stopReason: reply.status,
      model: reply.model,
    };
    const document = record as unknown as Document;
    if (reply.status !== 'completed' || (o.schema && reply.data === undefined)) {
      // The page fails with the reason and keeps its record: the status tells the steps and the
      // tokens of a run that ended without an answer as well.
      return {
        document,
        creditsUsed,
        failure: {
          error: agentFailure(reply.status, reply.output, !!o.schema),
          code: ErrorCode.UPSTREAM_FAILED,
        },
      };
    }
    return { document, creditsUsed };
  }

  /**
   * The run's step subject (agentStepRpc), served while the run lasts: each step the browser pool
   * reports is recorded in the agent log (not for zero-data-retention jobs) and sent as the job's
   * `action` event, once per step (`settle` does the same for the steps of the reply that were not
   * reported). A step that could not be recorded is tried again by `settle`.
   */
  private async liveSteps(
    job: JobRow,
    runId: string,
  ): Promise<{ stop: () => void; settle: (steps: readonly AgentStep[]) => Promise<void> }> {
    const log = job.zeroDataRetention ? undefined : this.log;
    const logging = log
      ? await log.startRun(job.id, runId).catch((err: unknown) => {
          this.logger.warn({ err, jobId: job.id }, 'agent run not logged');
          return false;
        })
      : false;
    const seen = new Set<number>();
    const take = async (reported: AgentStep): Promise<boolean> => {
      if (seen.has(reported.step)) return false;
      const step = redactStep(reported);
      if (logging) await log!.record(job.id, runId, step);
      await this.events?.action(job, runId, step);
      seen.add(step.step);
      return true;
    };
    const stop = this.messaging.serve(agentStepRpc(runId), async (req) => ({
      recorded: await take(req.step),
    }));
    return {
      stop,
      settle: async (steps) => {
        for (const step of steps) {
          await take(step).catch((err: unknown) =>
            this.logger.warn({ err, jobId: job.id, step: step.step }, 'agent step not recorded'),
          );
        }
      },
    };
  }

  /**
   * While the job's run is in progress: once the job is no longer running (cancelled, or ended by
   * the watchdog), its run is told to stop (again each second until it is over, as the run may not
   * have reached its replica yet).
   */
  private watchCancel(jobId: string): () => void {
    const store = this.store;
    if (!store) return () => undefined;
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void store
        .get(jobId)
        .then(async (job) => {
          if (!job || job.status !== 'scraping') await this.runner.cancel(jobId);
        })
        .catch((err: unknown) => this.logger.warn({ err, jobId }, 'agent cancel check failed'))
        .finally(() => {
          busy = false;
        });
    }, CANCEL_POLL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/**
 * Fields the agent typed into that look like credentials (password, one-time code, card number,
 * security code, secret, token, PIN): a step's `value` there is kept out of the agent log, the
 * trace and the `action` events.
 */
const SECRET_FIELD =
  /pass(?:word|code|phrase)|\bpwd\b|secret|token|one[- ]?time|\botp\b|\bpin\b|\bcv[cv]2?\b|security code|card ?number|\biban\b|\bssn\b/i;

/** The step as it is recorded and sent: a value typed into a credential field is redacted. */
export function redactStep(step: AgentStep): AgentStep {
  if (step.value === undefined || !SECRET_FIELD.test(step.target ?? '')) return step;
  return { ...step, value: '[redacted]' };
}

/** A job's thread as its create answers it. */
function threadOf(o: AgentJobOptions): { threadId?: string; threadTurn?: number } {
  return o.threadId ? { threadId: o.threadId, threadTurn: o.threadTurn } : {};
}

function agentFailure(status: string, output: string, withSchema: boolean): string {
  switch (status) {
    case 'max_steps':
      return `The agent reached its step limit without an answer: ${output}`;
    case 'timeout':
      return `The agent ran out of time (or of maxCredits) without an answer: ${output}`;
    case 'max_tokens':
      return `The agent spent its token budget (maxCredits) without an answer: ${output}`;
    case 'cancelled':
      return `The agent job was cancelled: ${output}`;
    case 'completed':
      return withSchema
        ? `The agent answered, but not with data matching the schema: ${output}`
        : `The agent failed: ${output}`;
    default:
      return `The agent failed: ${output}`;
  }
}
