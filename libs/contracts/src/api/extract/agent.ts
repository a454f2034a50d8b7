import { z } from 'zod';
import { publicBody } from '../common/public-body';
import { HttpUrl } from '../common/url';
import { AgentWebhookOption } from '../webhooks/webhook-config';
import { JsonSchemaObject } from '../scrape/formats';
import { EXTRACT_MAX_URLS, JOB_PROMPT_MAX } from './extract';

/** Most credits one agent job may cost when the caller sets no `maxCredits`. */
export const AGENT_MAX_CREDITS_DEFAULT = 2_500;

const notAvailable = (what: string) =>
  z
    .unknown()
    .optional()
    .refine((v) => v === undefined || v === null || v === false, { message: what });

/**
 * POST /v2/agent body (Firecrawl v2 shape): the browser agent carries out `prompt` starting from
 * `urls` (optional), answering `data` that matches `schema` when one is given. `model` and `effort`
 * are accepted for the SDKs' sake: the configured LLM runs every job.
 */
export const AgentRequest = publicBody({
  urls: z
    .array(HttpUrl)
    .max(EXTRACT_MAX_URLS)
    .optional()
    .describe(
      'Where the agent starts (the first is opened); without urls or threadId it starts on the web results for the prompt (when WDS_SEARXNG_URL is set)',
    ),
  prompt: z.string().min(1).max(JOB_PROMPT_MAX),
  schema: JsonSchemaObject.optional(),
  maxCredits: z.int().min(1).max(1_000_000).optional().describe('The job stops once it has cost this much'),
  strictConstrainToURLs: z
    .boolean()
    .optional()
    .describe('Keep navigation on the hosts of `urls` (which it then requires)'),
  model: z.string().max(100).optional().describe('Accepted; the configured LLM runs every job'),
  effort: z.enum(['low', 'medium', 'high']).optional().describe('low: 10 steps, medium: 18, high: 25'),
  zeroDataRetention: z.boolean().optional(),
  webhook: AgentWebhookOption.optional().describe(
    'Events agent.started, agent.completed (with the answer), agent.failed and agent.cancelled; a bare URL is short for {url}',
  ),
  threatProtection: notAvailable('threatProtection is not available on this service'),
  auditMetadata: z
    .object({ username: z.string().max(1024).optional() })
    .optional()
    .describe('Accepted, not stored'),
  threadId: z
    .uuid({ error: 'threadId: the threadId of an earlier agent job of this team' })
    .optional()
    .describe(
      'Continue this thread: the agent is told the earlier turns (their prompts and answers) and starts where the last one ended when no `urls` are given',
    ),
  mode: z
    .enum(['extract', 'chat'])
    .optional()
    .describe('extract (default): the answer in `data`; chat: a text reply in `message`'),
  exchange: notAvailable('exchange is not available on this service'),
  location: z
    .object({ country: z.string().max(10).optional() })
    .optional()
    .describe('Accepted; no geo proxies'),
})
  .refine((b) => !b.strictConstrainToURLs || (b.urls?.length ?? 0) > 0, {
    path: ['strictConstrainToURLs'],
    message: 'strictConstrainToURLs needs urls: navigation is kept on the hosts of the URLs given',
  })
  .refine((b) => b.mode !== 'chat' || !b.schema, {
    path: ['schema'],
    message: 'schema: a chat-mode run answers in text (`message`); use mode extract for structured data',
  })
  .refine((b) => !b.zeroDataRetention || !b.threadId, {
    path: ['threadId'],
    message: 'threadId: a thread keeps its earlier turns, which zero data retention does not allow',
  });
export type AgentRequest = z.output<typeof AgentRequest>;
export type AgentRequestInput = z.input<typeof AgentRequest>;

export const AgentCreateResponse = z.object({
  success: z.literal(true),
  id: z.uuid(),
  threadId: z
    .uuid()
    .optional()
    .describe('The thread of this run: pass it back to continue (none under zero data retention)'),
  threadTurn: z.int().min(1).optional().describe('1-based position of this run in its thread'),
});
export type AgentCreateResponse = z.output<typeof AgentCreateResponse>;

/**
 * GET /v2/agent/{id}. Only `processing`, `completed` and `failed` (firecrawl-py refuses any other):
 * a cancelled job reads as `failed` with the reason in `error`.
 */
export const AgentStatusResponse = z.object({
  success: z.boolean(),
  id: z.uuid(),
  status: z.enum(['processing', 'completed', 'failed']),
  data: z.unknown().optional(),
  error: z.string().optional(),
  stopReason: z.string().optional(),
  model: z.string().optional(),
  expiresAt: z.string(),
  creditsUsed: z.int().min(0),
  tokensUsed: z.int().min(0),
  steps: z
    .array(z.object({ action: z.string(), target: z.string().optional(), outcome: z.string().optional() }))
    .optional(),
  finalUrl: z.string().optional(),
  threadId: z.uuid().optional(),
  threadTurn: z.int().min(1).optional(),
  mode: z.enum(['extract', 'chat']).optional(),
  message: z.string().optional().describe("A chat-mode run's reply (its answer is here, not in `data`)"),
});
export type AgentStatusResponse = z.output<typeof AgentStatusResponse>;

export const AgentCancelResponse = z.object({ success: z.literal(true) });
export type AgentCancelResponse = z.output<typeof AgentCancelResponse>;

/** GET /v2/agent: `before`, epoch milliseconds (the SDKs' `listAgents({before})`). */
export const AgentListQuery = z.object({
  before: z.coerce
    .number()
    .int()
    .min(0)
    .max(8_640_000_000_000_000)
    .optional()
    .describe('Only jobs created before this time (Unix epoch milliseconds)'),
});
export type AgentListQuery = z.output<typeof AgentListQuery>;

const AgentEffort = z.enum(['low', 'medium', 'high']);

export const AgentListItem = z.object({
  id: z.uuid(),
  createdAt: z.string(),
  targetHint: z.string().describe('The host of the first URL, else the start of the prompt'),
  origin: z.string().describe('The client that started the job (`origin` of its request), or `api`'),
  integration: z.string().optional(),
  settings: z
    .object({ hidden: z.boolean(), starred: z.boolean(), label: z.string().optional() })
    .describe('Always unstarred and visible here (no dashboard)'),
  status: z.enum(['processing', 'completed', 'failed']),
  options: z.object({
    urls: z.array(z.string()).optional(),
    prompt: z.string(),
    schema: z.unknown().optional(),
    model: z.string().describe('As asked, or `default`: the configured LLM runs every job'),
    effort: AgentEffort.optional(),
  }),
});
export type AgentListItem = z.output<typeof AgentListItem>;

/** `next`: absolute URL of the next page, only when there is one. */
export const AgentListResponse = z.object({
  success: z.literal(true),
  agents: z.array(AgentListItem),
  next: z.string().optional(),
});
export type AgentListResponse = z.output<typeof AgentListResponse>;

export const AgentTraceQuery = z.object({
  liveView: z
    .enum(['true', 'false'])
    .optional()
    .describe('Add `activeBrowserSessions`: the live view of the run in progress (none once it ended)'),
});
export type AgentTraceQuery = z.output<typeof AgentTraceQuery>;

const TraceAgent = z.object({
  id: z.string(),
  role: z.enum(['orchestrator', 'subagent', 'browser', 'system']),
  name: z.string(),
  parentId: z.string().optional(),
});
const TraceError = z.object({
  code: z.enum(['cancelled', 'credit_limit_reached', 'parent_finished', 'refused', 'internal']),
  source: z.enum(['agent', 'tool', 'billing', 'system']),
  retryable: z.boolean(),
  message: z.string(),
});
const traceEvent = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({
    schemaVersion: z.literal(1),
    eventId: z.string(),
    runId: z.string(),
    occurredAt: z.string(),
    producerSequence: z.int().min(0),
    agent: TraceAgent,
    type: z.literal(type),
    ...shape,
  });

/**
 * One event of an agent job's trace (schemaVersion 1): the run, each attempt of the browser agent,
 * each step as a tool call (toolName = the action), the answer as an artifact.
 */
export const AgentTraceEvent = z.discriminatedUnion('type', [
  traceEvent('run.started', {}),
  traceEvent('run.cancel_requested', { reason: z.literal('user') }),
  traceEvent('run.finished', {
    outcome: z.enum(['succeeded', 'failed', 'cancelled', 'refused', 'credit_limit_reached']),
    error: TraceError.nullable(),
  }),
  traceEvent('agent.started', {}),
  traceEvent('agent.finished', {
    outcome: z.enum(['succeeded', 'failed', 'cancelled', 'refused']),
    durationMs: z.int().min(0),
    error: TraceError.nullable(),
  }),
  traceEvent('progress.reported', {
    phase: z.enum(['planning', 'working', 'finalizing']),
    message: z.string(),
  }),
  traceEvent('tool_call.started', { toolCallId: z.string(), toolName: z.string(), parameters: z.unknown() }),
  traceEvent('tool_call.finished', { toolCallId: z.string(), toolName: z.string(), result: z.unknown() }),
  traceEvent('artifact.updated', {
    artifact: z.object({
      kind: z.enum(['json', 'markdown', 'html', 'screenshot', 'text']),
      artifactId: z.string(),
      snapshotId: z.string(),
      change: z.enum(['init', 'partial', 'append', 'modify', 'update']),
    }),
  }),
]);
export type AgentTraceEvent = z.output<typeof AgentTraceEvent>;

export const AgentTraceResponse = z.object({
  success: z.literal(true),
  id: z.uuid(),
  events: z.array(AgentTraceEvent),
  creditsUsed: z.int().min(0),
  activeBrowserSessions: z
    .array(
      z.object({
        id: z.string(),
        liveViewUrl: z
          .string()
          .describe("A page showing the agent's browser live (view only; its token is the credential)"),
        viewport: z.object({ width: z.int(), height: z.int() }),
      }),
    )
    .optional()
    .describe('With liveView=true: the browser of the run in progress'),
});
export type AgentTraceResponse = z.output<typeof AgentTraceResponse>;

export const AgentSnapshotParams = z.object({
  id: z.uuid().describe('Job id'),
  snapshotId: z.string().min(1).max(200).describe("A snapshotId named by the job's trace"),
});
export type AgentSnapshotParams = z.output<typeof AgentSnapshotParams>;

export const AgentSnapshotResponse = z.object({
  success: z.literal(true),
  id: z.uuid(),
  snapshotId: z.string(),
  snapshot: z.string().describe('The artifact: JSON text for a schema answer, else the answer text'),
});
export type AgentSnapshotResponse = z.output<typeof AgentSnapshotResponse>;

export const AgentThreadParams = z.object({ threadId: z.uuid().describe('Thread id') });
export type AgentThreadParams = z.output<typeof AgentThreadParams>;

export const AgentThreadQuery = z.object({
  includeData: z.enum(['true', 'false']).optional().describe("Include each completed run's `data`"),
});
export type AgentThreadQuery = z.output<typeof AgentThreadQuery>;

export const AgentThreadRun = z.object({
  id: z.uuid(),
  turn: z.int().min(1),
  mode: z.enum(['extract', 'chat']),
  prompt: z.string(),
  urls: z.array(z.string()).optional(),
  schema: z.unknown().optional(),
  effort: AgentEffort.optional(),
  status: z.enum(['processing', 'succeeded', 'failed', 'cancelled', 'credit_limit_reached']),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  creditsUsed: z.int().min(0).nullable(),
  message: z.string().nullable(),
  data: z.unknown().optional(),
});
export type AgentThreadRun = z.output<typeof AgentThreadRun>;

/** GET /v2/agent/threads/{threadId}: the thread and its runs, oldest turn first. */
export const AgentThreadResponse = z.object({
  success: z.literal(true),
  thread: z.object({
    id: z.uuid(),
    createdAt: z.string(),
    updatedAt: z.string(),
    status: z.enum(['idle', 'running']),
    runs: z.array(AgentThreadRun),
  }),
});
export type AgentThreadResponse = z.output<typeof AgentThreadResponse>;

/** GET /v2/agent/{id}/live/{token}: a running agent's live-view page (the token is the credential). */
export const AgentLiveViewParams = z.object({
  id: z.uuid().describe('Job id'),
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "token: the live view token of the trace's liveViewUrl"),
});
export type AgentLiveViewParams = z.output<typeof AgentLiveViewParams>;
