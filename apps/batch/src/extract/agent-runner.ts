import { ErrorCode, ServiceError } from '@wds/contracts';
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
  /** Token budget of the run (passed on when the pool's contract has it). */
  maxTokens: number;
  zeroDataRetention: boolean;
}

/** What a run answered. */
export interface AgentRunResult {
  status: string;
  output: string;
  data?: unknown;
  steps: { action: string; target?: string; outcome: string; detail?: string }[];
  tokens: { input: number; output: number; estimated: boolean };
  model: string;
  browserMs: number;
  finalUrl: string;
}

/** Runs the browser agent (the browser pool's RPC). */
export interface AgentRunner {
  run(run: AgentRun): Promise<AgentRunResult>;
}

/** Why agent jobs cannot run: the browser pool's agent RPC is not part of this build yet. */
export const AGENT_NOT_AVAILABLE =
  'The browser agent is not available in this build (the browser pool has no agent RPC yet); agent jobs cannot run';

/** The runner of this build. */
export function agentRunner(_messaging: Messaging): AgentRunner {
  return {
    run: () => Promise.reject(new ServiceError(ErrorCode.NOT_IMPLEMENTED, AGENT_NOT_AVAILABLE)),
  };
}
