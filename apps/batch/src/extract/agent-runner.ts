import {
  agentCancelRpc,
  AGENT_RPC_MARGIN_MS,
  BROWSER_AGENT_RPC,
  ErrorCode,
  ServiceError,
  type AgentRunReply,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

/** One run of the browser agent, as the browser pool's agent RPC takes it. */
export interface AgentRun {
  teamId: string;
  jobId: string;
  prompt: string;
  urls: string[];
  schema?: Record<string, unknown>;
  maxSteps: number;
  timeoutMs: number;
  allowedDomains?: string[];
  zeroDataRetention: boolean;
  /** Token budget of the run (the loop stops with max_tokens once spent). */
  maxTokens?: number;
  /** The run's id: its steps are reported to agentStepRpc(stepsTo) as they end. */
  stepsTo?: string;
  /** The thread whose browser state (cookies, localStorage) the run continues and leaves. */
  threadState?: { threadId: string; expiresAt: string };
}

/** Runs the browser agent. */
export interface AgentRunner {
  run(run: AgentRun): Promise<AgentRunReply>;
  /**
   * Stops the job's run in progress (its replica serves the run's cancel subject): true when a run
   * was found and is stopping, false when none is in progress (or no answer came).
   */
  cancel(jobId: string): Promise<boolean>;
}

/** How long a cancel request waits for the replica running the job. */
const CANCEL_TIMEOUT_MS = 5000;

/**
 * The browser pool's agent RPC (`wds.browser-pool.v1.agent.run`). A pool at capacity
 * (CONCURRENCY_LIMITED) is an outage for the job's task: retried like a scraper that is away.
 */
export function agentRunner(messaging: Messaging): AgentRunner {
  return {
    run: async (r) => {
      try {
        return await messaging.request(
          BROWSER_AGENT_RPC.run,
          {
            teamId: r.teamId,
            jobId: r.jobId,
            prompt: r.prompt,
            ...(r.urls.length > 0 ? { urls: r.urls } : {}),
            ...(r.schema ? { schema: r.schema } : {}),
            maxSteps: r.maxSteps,
            timeoutMs: r.timeoutMs,
            ...(r.allowedDomains ? { allowedDomains: r.allowedDomains } : {}),
            zeroDataRetention: r.zeroDataRetention,
            ...(r.maxTokens !== undefined ? { maxTokens: r.maxTokens } : {}),
            ...(r.stepsTo ? { stepsTo: r.stepsTo } : {}),
            ...(r.threadState && !r.zeroDataRetention ? { threadState: r.threadState } : {}),
          },
          { timeoutMs: r.timeoutMs + AGENT_RPC_MARGIN_MS },
        );
      } catch (err) {
        if (err instanceof ServiceError && err.code === ErrorCode.CONCURRENCY_LIMITED) {
          throw new ServiceError(ErrorCode.SERVICE_UNAVAILABLE, `The browser pool is busy: ${err.message}`);
        }
        throw err;
      }
    },
    cancel: async (jobId) => {
      try {
        const reply = await messaging.request(
          agentCancelRpc(jobId),
          { jobId },
          { timeoutMs: CANCEL_TIMEOUT_MS },
        );
        return reply.stopped;
      } catch {
        // No responders: no run of this job is in progress (not started yet, or over).
        return false;
      }
    },
  };
}
