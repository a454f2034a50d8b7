import { z } from 'zod';
import { defineRpc } from '../define';

/*
 * The browser agent (libs/agent) run by the browser-pool in a fresh browser context: the agent
 * loop observes the page as an accessibility snapshot, an LLM picks one action of a fixed set per
 * step, the pool executes it (network policy on every request, no new tabs) until the model
 * finishes, the step limit or the deadline. Used by the agent and extract jobs
 * (docs/adr/0021-browser-agent.md). NEVER rename a shipped subject: bump its version.
 *
 * Long runs: the request is a core NATS request/reply whose responder says it is still working
 * every second (libs/messaging responder liveness), so the caller sets `timeoutMs` of the request
 * to the run's `timeoutMs` plus a margin (AGENT_RPC_MARGIN_MS) and learns within seconds when the
 * replica running it dies (SERVICE_UNAVAILABLE: run it again).
 */

/** Steps per run at most (and the default). */
export const AGENT_MAX_STEPS = 25;
/** Added to a run's timeoutMs for the NATS request's own timeout (reply, browser close). */
export const AGENT_RPC_MARGIN_MS = 30_000;

/** What one step did: the action, its target, and what came of it. */
export const AgentStep = z.object({
  step: z.int().min(1),
  /** click, fill, select, press, scroll, navigate, wait, extract, finish, or invalid (unusable model answer). */
  action: z.string(),
  /** The element (`e12 button "Send"`), URL, key or direction the action was aimed at. */
  target: z.string().optional(),
  /** Text typed, option chosen (fill/select). */
  value: z.string().optional(),
  /** ok: done; refused: outside the allowed actions or policy (not executed); error: it failed. */
  outcome: z.enum(['ok', 'refused', 'error']),
  /** Why it was refused or failed; for extract, the text read (cut). */
  detail: z.string().optional(),
  /** The page's URL after the step. */
  url: z.string(),
  ms: z.int().min(0),
  /** When the step ended (epoch ms); absent in replies of older replicas. */
  at: z.int().min(0).optional(),
});
export type AgentStep = z.output<typeof AgentStep>;

/**
 * completed: the model finished with an answer; the others stopped it without one (max_tokens: the
 * run's token budget was spent; cancelled: its caller cancelled it through the cancel subject).
 */
export const AgentRunStatus = z.enum([
  'completed',
  'max_steps',
  'max_tokens',
  'timeout',
  'cancelled',
  'failed',
]);
export type AgentRunStatus = z.output<typeof AgentRunStatus>;

export const AgentRunRequest = z.object({
  teamId: z.string().min(1),
  /** The job the run belongs to (logs, traces). */
  jobId: z.string().min(1).max(200),
  prompt: z.string().min(1).max(10_000),
  /** Start pages (≤ 10): the first is opened, the others are offered to the model as places to go. */
  urls: z.array(z.url()).max(10).optional(),
  /** JSON Schema (object root) the final `data` must satisfy; without it only `output` is returned. */
  schema: z.record(z.string(), z.unknown()).optional(),
  maxSteps: z.int().min(1).max(AGENT_MAX_STEPS).default(AGENT_MAX_STEPS),
  /** The whole run (model calls, page work) ends by then; status `timeout` when it does. */
  timeoutMs: z.int().min(1000).max(1_800_000),
  /**
   * Navigation policy: hosts (and their subdomains) the agent may navigate to. Omitted: any public
   * http(s) page (the network policy still refuses private destinations on every request).
   */
  allowedDomains: z.array(z.string().min(1).max(253)).max(100).optional(),
  /** Zero data retention: nothing of the pages is logged. */
  zeroDataRetention: z.boolean().default(false),
  /**
   * Token budget of the whole run (prompt + output of every model call): the run stops with status
   * `max_tokens` before a model call whose estimated size would take it past this.
   */
  maxTokens: z.int().min(1).optional(),
  /**
   * The run's id: each step is reported to `agentStepRpc(stepsTo)` as soon as it ends (its caller
   * records it and sends the job's `action` webhook event). Reports are best effort: the reply's
   * `steps` stay the complete log.
   */
  stepsTo: z.uuid().optional(),
  /**
   * An agent thread's browser state: the run starts with the cookies and localStorage the thread's
   * previous run left (kept per team and thread by the browser pool) and leaves its own for the next
   * turn, kept until `expiresAt` (the thread's newest job's expiry). Never with zero data retention.
   */
  threadState: z.object({ threadId: z.uuid(), expiresAt: z.iso.datetime() }).optional(),
});
export type AgentRunRequest = z.output<typeof AgentRunRequest>;
export type AgentRunRequestInput = z.input<typeof AgentRunRequest>;

export const AgentRunReply = z.object({
  status: AgentRunStatus,
  /** The model's final answer (completed), else a sentence saying why the run stopped. */
  output: z.string(),
  /** With a schema and status completed: the value, valid against it (absent when it could not be produced). */
  data: z.unknown().optional(),
  steps: z.array(AgentStep),
  /** Tokens the model calls spent (provider-reported unless `estimated`). */
  tokens: z.object({ input: z.int().min(0), output: z.int().min(0), estimated: z.boolean() }),
  /** The model the run used (for token usage records). */
  model: z.string(),
  /** How long the browser context was held (billing by browser time). */
  browserMs: z.int().min(0),
  finalUrl: z.string(),
  /** The page as the agent last saw it (accessibility snapshot text, cut). */
  finalSnapshot: z.string(),
  warnings: z.array(z.string()),
});
export type AgentRunReply = z.output<typeof AgentRunReply>;

export const AgentCancelRequest = z.object({ jobId: z.string().min(1).max(200) });
export type AgentCancelRequest = z.output<typeof AgentCancelRequest>;
/** stopped: the run was in progress on the replica that answered and is being stopped. */
export const AgentCancelReply = z.object({ stopped: z.boolean() });
export type AgentCancelReply = z.output<typeof AgentCancelReply>;

/**
 * The cancel subject of one run: the replica running the job's agent serves it while the run lasts
 * (`wds.browser-pool.v1.agent.cancel.<jobId as base64url>`). A request aborts the loop (the model
 * call in flight included), the run replies `cancelled` with what it spent, and its context is
 * closed. No responders: no run of that job is in progress anywhere.
 */
export function agentCancelRpc(jobId: string) {
  const token = Buffer.from(jobId, 'utf8').toString('base64url');
  return defineRpc(
    `wds.browser-pool.v1.agent.cancel.${token}`,
    'browser-pool',
    AgentCancelRequest,
    AgentCancelReply,
  );
}

export const AgentViewRequest = z.object({ jobId: z.string().min(1).max(200) });
export type AgentViewRequest = z.output<typeof AgentViewRequest>;
/**
 * A run's live view: the replica's session endpoint (the gateway splices the view's WebSocket to
 * `<endpoint>/agents/<jobId>/live/<token>`), the view's token (the credential of its public page)
 * and the page's viewport.
 */
export const AgentViewReply = z.object({
  endpoint: z.url(),
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  viewport: z.object({ width: z.int().min(1), height: z.int().min(1) }),
});
export type AgentViewReply = z.output<typeof AgentViewReply>;

/**
 * The live-view subject of one run (`wds.browser-pool.v1.agent.view.<jobId as base64url>`), served
 * by the replica running the job's agent while the run lasts. No responders: no run of that job
 * is in progress (or its replica serves no views).
 */
export function agentViewRpc(jobId: string) {
  const token = Buffer.from(jobId, 'utf8').toString('base64url');
  return defineRpc(
    `wds.browser-pool.v1.agent.view.${token}`,
    'browser-pool',
    AgentViewRequest,
    AgentViewReply,
  );
}

/** One step of a run, reported while the run goes on. */
export const AgentStepReport = z.object({ runId: z.uuid(), step: AgentStep });
export type AgentStepReport = z.output<typeof AgentStepReport>;
/** recorded: the step was new to its caller (false for a report it already had). */
export const AgentStepAck = z.object({ recorded: z.boolean() });
export type AgentStepAck = z.output<typeof AgentStepAck>;

/**
 * The step subject of one run (`wds.batch.v1.agent.step.<runId>`), served by the batch worker that
 * waits for the run while it lasts. No responders: nobody waits for that run any more.
 */
export function agentStepRpc(runId: string) {
  return defineRpc(`wds.batch.v1.agent.step.${runId}`, 'batch', AgentStepReport, AgentStepAck);
}

export const BROWSER_AGENT_RPC = {
  /**
   * Runs the agent in a fresh context of any replica with room; at capacity CONCURRENCY_LIMITED
   * (ask again shortly); no LLM configured on the pool: BAD_REQUEST. It bills nothing and records no
   * token usage: the caller does both from the reply.
   */
  run: defineRpc('wds.browser-pool.v1.agent.run', 'browser-pool', AgentRunRequest, AgentRunReply),
} as const;
