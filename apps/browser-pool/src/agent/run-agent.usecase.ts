import { compileSchema, LlmError, NO_USAGE } from '@wds/llm';
import type { AgentRunResult } from '@wds/agent';
import {
  agentCancelRpc,
  agentStepRpc,
  ErrorCode,
  ServiceError,
  type AgentRunReply,
  type AgentRunRequest,
  type AgentStep,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { LostBrowserError, type BrowserPool } from '../pool/browser-pool';
import type { JobContext } from '../render/job-context';
import type { StorageState } from '../render/context-options';
import type { AgentViews } from './agent-views';
import type { BrowserAgent } from './browser-agent';
import type { ThreadStates } from './thread-states';

/** Beyond the run's deadline: closing the context, the reply. */
const CLOSE_MARGIN_MS = 10_000;
/** How long a run whose browser died gets to stop (its model call is aborted at once). */
const LOST_RUN_STOP_MS = 5000;
/** One step report's request timeout. */
const STEP_REPORT_TIMEOUT_MS = 5000;
/** How long the reply waits for the step reports still on their way (they go on after it). */
const STEP_REPORTS_WAIT_MS = 2000;

export interface AgentContextSpec {
  key?: string;
  options: BrowserContextOptions;
}

/** How long reading a context's storage state may take before the thread's state is not kept. */
const STORAGE_STATE_TIMEOUT_MS = 5000;

/** The cookies and localStorage of the page's context, or undefined when they cannot be read in time. */
async function storageStateOf(page: Page): Promise<StorageState | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    page
      .context()
      .storageState()
      .catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), STORAGE_STATE_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Serves a run's cancel subject while it lasts; the returned function stops serving it. */
export type CancelServer = (jobId: string, cancel: () => boolean) => () => void;

/** The cancel subject of a run on NATS (agentCancelRpc): any replica of the caller can stop it. */
export function natsCancelServer(messaging: Messaging): CancelServer {
  return (jobId, cancel) => messaging.serve(agentCancelRpc(jobId), async () => ({ stopped: cancel() }));
}

/** Reports one step of a run to its caller; rejects when the caller did not take it. */
export type StepReporter = (runId: string, step: AgentStep) => Promise<void>;

/** The step subject of a run on NATS (agentStepRpc), served by the caller waiting for the run. */
export function natsStepReporter(messaging: Messaging): StepReporter {
  return async (runId, step) => {
    await messaging.request(agentStepRpc(runId), { runId, step }, { timeoutMs: STEP_REPORT_TIMEOUT_MS });
  };
}

/**
 * The live step reports of one run: sent one after the other (each once the previous one settled,
 * so the caller gets them in order), never awaited by the loop, failures logged and dropped (the
 * reply's `steps` stay the complete log).
 */
class StepReports {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private failed = 0;

  constructor(
    private readonly runId: string,
    /** The run's jobId and teamId, for the logs. */
    private readonly ids: { jobId: string; teamId: string },
    private readonly report: StepReporter,
    private readonly logger: Logger,
  ) {}

  readonly add = (step: AgentStep): void => {
    this.pending++;
    this.chain = this.chain
      .then(() => this.report(this.runId, step))
      .catch((err: unknown) => {
        // The error's code only: a message may quote the step, and steps may carry page text.
        const log = {
          ...this.ids,
          runId: this.runId,
          step: step.step,
          code: err instanceof ServiceError ? err.code : 'error',
        };
        if (this.failed++ === 0) this.logger.warn(log, 'agent step report failed; the reply keeps the step');
        else this.logger.debug(log, 'agent step report failed');
      })
      .finally(() => {
        this.pending--;
      });
  };

  /** Waits for the reports on their way, `ms` at most (the ones left go on in the background). */
  async settle(ms: number): Promise<void> {
    if (this.pending === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.chain.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]).finally(() => clearTimeout(timer));
    if (!done)
      this.logger.debug(
        { ...this.ids, runId: this.runId, pending: this.pending },
        'agent step reports still on their way at the reply',
      );
  }
}

/**
 * wds.browser-pool.v1.agent.run: the agent in a fresh context of the render pool (network policy on
 * every request by its route guard and policy proxy, ad/tracker blocking), at most WDS_AGENT_RUNS at
 * once per replica; the context is closed when the run ends, whatever ended it. While it runs, the
 * run's cancel subject (agentCancelRpc) aborts it: the loop stops before its next step (the model
 * call in flight is aborted) and the reply says `cancelled` with the tokens and browser time spent.
 * With `stepsTo`, each step is reported to the caller (agentStepRpc) as soon as it ends; the reply
 * waits for those reports a moment (STEP_REPORTS_WAIT_MS) so they normally arrive before it.
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
    private readonly reportStep: StepReporter,
    /** Live views of the runs (absent: runs have none). */
    private readonly views?: AgentViews,
    private readonly now: () => number = Date.now,
    /** Agent threads' browser states (absent: a thread's runs start afresh). */
    private readonly threads?: ThreadStates,
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
    const ids = { jobId: req.jobId, teamId: req.teamId };
    const reports = req.stepsTo ? new StepReports(req.stepsTo, ids, this.reportStep, this.logger) : undefined;
    try {
      const started = this.now();
      const deadline = started + req.timeoutMs;
      const thread = req.threadState && !req.zeroDataRetention && this.threads ? req.threadState : undefined;
      const state = thread ? await this.threadState(req, thread.threadId) : undefined;
      const spec = {
        // A thread's state needs a context of its own (made with it); else one of the pool's.
        key: state ? undefined : this.spec.key,
        options: state ? { ...this.spec.options, storageState: state } : this.spec.options,
        deadline: deadline + CLOSE_MARGIN_MS,
        // Its clicks and form submissions may already have changed the site: never repeated blindly.
        rerunOnLostBrowser: false,
      };
      const attempt = async (
        retry: boolean,
      ): Promise<{ result: AgentRunResult; browserMs: number; left?: StorageState }> => {
        let running: { result: Promise<AgentRunResult>; t0: number } | undefined;
        try {
          return await this.pool.run(spec, async (job) => {
            // The context's route guard refuses everything until bound: the agent's pages get the
            // network policy and ad/tracker blocking on every request.
            job.guard.bind({ blockAds: true, blocked: { policy: 0, ads: 0 } });
            // Its live view (GET /v2/agent/{id}/trace?liveView=true) lasts as long as its page.
            const closeView = this.views?.show(req.jobId, job.page);
            const t0 = this.now();
            running = {
              t0,
              result: this.agent.run(job.page, {
                teamId: req.teamId,
                task: req.prompt,
                schema: req.schema,
                maxSteps: req.maxSteps,
                deadline,
                policy: { allowedDomains: req.allowedDomains },
                startUrls: req.urls,
                maxTokens: req.maxTokens,
                signal: abort.signal,
                onStep: reports?.add,
              }),
            };
            const result = await running.result.finally(() => closeView?.());
            const browserMs = Math.max(0, Math.round(this.now() - t0));
            // What the run leaves its thread: read before the context closes.
            const left = thread ? await storageStateOf(job.page) : undefined;
            return { result, browserMs, left };
          });
        } catch (err) {
          if (!(err instanceof LostBrowserError)) throw err;
          // Lost before the agent started: nothing was done on a site, it may start on the new browser.
          if (!running) {
            if (retry && this.now() < deadline) return attempt(false);
            throw err.cause;
          }
          const result = await this.afterLostBrowser(req, running.result, abort);
          return { result, browserMs: Math.max(0, Math.round(this.now() - running.t0)) };
        }
      };
      const { result, browserMs, left } = await attempt(true);
      if (thread && left) await this.keepThreadState(req, thread, left);
      await reports?.settle(STEP_REPORTS_WAIT_MS);
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

  /** The state the thread's previous run left; a store that fails starts the run afresh (logged). */
  private async threadState(req: AgentRunRequest, threadId: string): Promise<StorageState | undefined> {
    try {
      return await this.threads!.load(req.teamId, threadId);
    } catch (err) {
      this.logger.warn(
        { err, jobId: req.jobId, teamId: req.teamId },
        "the agent thread's browser state could not be read; the run starts afresh",
      );
      return undefined;
    }
  }

  private async keepThreadState(
    req: AgentRunRequest,
    thread: { threadId: string; expiresAt: string },
    state: StorageState,
  ): Promise<void> {
    try {
      const kept = await this.threads!.save(req.teamId, thread.threadId, thread.expiresAt, state);
      if (!kept)
        this.logger.info(
          { jobId: req.jobId, teamId: req.teamId },
          "the agent thread's browser state is too large to keep; the next turn starts afresh",
        );
    } catch (err) {
      this.logger.warn(
        { err, jobId: req.jobId, teamId: req.teamId },
        "the agent thread's browser state could not be kept; the next turn starts afresh",
      );
    }
  }

  /**
   * The browser died under the run. It is not run again (its actions may have changed the site, a
   * form sent twice is worse than an error): the loop, still going on a dead page, is stopped, and
   * the run ends `failed` with what it did and the tokens it spent, which the caller bills.
   */
  private async afterLostBrowser(
    req: AgentRunRequest,
    running: Promise<AgentRunResult>,
    abort: AbortController,
  ): Promise<AgentRunResult> {
    abort.abort();
    let timer: NodeJS.Timeout | undefined;
    const partial = await Promise.race([
      running.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), LOST_RUN_STOP_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    this.logger.warn(
      {
        jobId: req.jobId,
        teamId: req.teamId,
        steps: partial?.steps.length,
        tokens: partial?.usage.totalTokens,
      },
      'browser lost during an agent run; not run again',
    );
    if (partial?.status === 'completed') return partial;
    const steps = partial?.steps ?? [];
    return {
      status: 'failed',
      output: `The browser crashed during the run, after ${steps.length} steps; the run was stopped and not repeated, because its actions may already have changed the site: start a new job to try again.`,
      steps,
      usage: partial?.usage ?? NO_USAGE,
      model: partial?.model ?? this.agent.model,
      finalUrl: partial?.finalUrl ?? '',
      finalSnapshot: '',
      warnings: partial?.warnings ?? [],
    };
  }
}
