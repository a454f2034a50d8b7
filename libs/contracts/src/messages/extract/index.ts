import { z } from 'zod';
import {
  EXTRACT_MAX_URLS,
  EXTRACT_SEARCH_PAGES_MAX,
  EXTRACT_PAGE_LIMIT_MAX,
  ExtractStatus,
  JOB_PROMPT_MAX,
} from '../../api/extract/extract';
import { AgentThreadRun } from '../../api/extract/agent';
import { JsonSchemaObject } from '../../api/scrape/formats';
import { ScrapeOptions } from '../../api/scrape/scrape-request';
import { WebhookConfig } from '../../api/webhooks/webhook-config';
import { defineRpc } from '../define';
import { JobRef } from '../jobs';

/*
 * Extract and agent jobs, run by the batch service on the page-job machinery (@wds/jobs).
 * NEVER rename a shipped subject: bump the version.
 */

/**
 * Creates an extract job: URL globs are expanded through map (at most `limit` pages in all), then
 * every page is scraped with the `json` format and the answers merged when the job is read. The id
 * comes from the gateway, so a retried create is the same job.
 * Errors: BAD_REQUEST (no page left to read, e.g. a glob that matched nothing).
 */
export const ExtractCreateRequest = z.object({
  jobId: z.uuid(),
  teamId: z.string().min(1),
  /** Valid, scheme-completed URLs (those with `*` are globs), then the pages a web search found. */
  urls: z
    .array(z.string().min(1).max(2048))
    .min(1)
    .max(EXTRACT_MAX_URLS + EXTRACT_SEARCH_PAGES_MAX),
  prompt: z.string().min(1).max(JOB_PROMPT_MAX).optional(),
  systemPrompt: z.string().max(JOB_PROMPT_MAX).optional(),
  schema: JsonSchemaObject.optional(),
  showSources: z.boolean().default(false),
  limit: z.int().min(1).max(EXTRACT_PAGE_LIMIT_MAX),
  includeSubdomains: z.boolean().default(true),
  ignoreSitemap: z.boolean().default(false),
  /** How pages are fetched (re-parsing the validated options is idempotent); formats are replaced. */
  scrapeOptions: ScrapeOptions,
  /** Deadline of each page's scrape and extraction (the public `timeout`); default 300 s. */
  pageTimeoutMs: z.int().min(1000).max(300_000).optional(),
  /** The team's concurrency limit: the job's pages run at most this many at once. */
  teamConcurrency: z.int().min(1),
  /** Lookup prefix of the API key, for the token usage of the pages (null without one). */
  apiKey: z.string().min(1).max(64).nullable().default(null),
  /** Where the job's events go (extract kinds only; validated by the public schema). */
  webhook: WebhookConfig.optional(),
  /**
   * Tokens the gateway's model spent writing the web search query that found some of `urls`
   * (already in the team's token usage): counted in the job's `tokensUsed` with its pages'.
   */
  searchTokens: z.int().min(0).default(0),
});
export type ExtractCreateRequest = z.output<typeof ExtractCreateRequest>;
export type ExtractCreateRequestInput = z.input<typeof ExtractCreateRequest>;

export const ExtractCreateReply = z.object({ id: z.uuid(), pages: z.int().min(1) });
export type ExtractCreateReply = z.output<typeof ExtractCreateReply>;

/** Creates an agent job: one task that runs the browser agent (browser-pool) from the prompt. */
export const AgentCreateRequest = z.object({
  jobId: z.uuid(),
  teamId: z.string().min(1),
  prompt: z.string().min(1).max(JOB_PROMPT_MAX),
  urls: z.array(z.string().min(1).max(2048)).max(EXTRACT_MAX_URLS).default([]),
  schema: JsonSchemaObject.optional(),
  /** The job's cost never exceeds this. */
  maxCredits: z.int().min(1),
  maxSteps: z.int().min(1).max(25),
  /** `strictConstrainToURLs`: the agent navigates only to these hosts (and their subdomains). */
  allowedDomains: z.array(z.string().min(1).max(253)).max(10).optional(),
  zeroDataRetention: z.boolean().default(false),
  teamConcurrency: z.int().min(1),
  apiKey: z.string().min(1).max(64).nullable().default(null),
  /** Where the job's events go (agent kinds only; validated by the public schema). */
  webhook: WebhookConfig.optional(),
  /** As the caller asked (kept for GET /v2/agent; the configured LLM runs every job). */
  model: z.string().max(100).optional(),
  effort: z.enum(['low', 'medium', 'high']).optional(),
  /** The client that started the job (`origin` of the body, e.g. `js-sdk@4.42.0`) and its integration. */
  origin: z.string().max(500).optional(),
  integration: z.string().max(500).optional(),
  /** Continue this thread of the team (NOT_FOUND unknown, CONFLICT while a run of it is in progress). */
  threadId: z.uuid().optional(),
  /** extract: the answer in `data`; chat: a text reply in `message`. */
  mode: z.enum(['extract', 'chat']).default('extract'),
});
export type AgentCreateRequest = z.output<typeof AgentCreateRequest>;
export type AgentCreateRequestInput = z.input<typeof AgentCreateRequest>;

/** The thread of the run (none for zero-data-retention jobs) and its turn in it. */
export const AgentCreateReply = z.object({
  id: z.uuid(),
  threadId: z.uuid().optional(),
  threadTurn: z.int().min(1).optional(),
});
export type AgentCreateReply = z.output<typeof AgentCreateReply>;

export const AgentJobStep = z.object({
  action: z.string(),
  target: z.string().optional(),
  outcome: z.string().optional(),
});
export type AgentJobStep = z.output<typeof AgentJobStep>;

/** The state of an extract or agent job (the gateway shapes it for its endpoint). */
export const ExtractJobReply = z.object({
  kind: z.enum(['extract', 'agent']),
  status: ExtractStatus,
  /** Extract: the merged object once completed. Agent: the answer (`data`, else the text output). */
  data: z.unknown().optional(),
  error: z.string().optional(),
  warning: z.string().optional(),
  sources: z.record(z.string(), z.array(z.string())).optional(),
  expiresAt: z.string(),
  tokensUsed: z.int().min(0),
  creditsUsed: z.int().min(0),
  /** Agent: the step log, why the loop stopped, the page it ended on. */
  steps: z.array(AgentJobStep).optional(),
  stopReason: z.string().optional(),
  finalUrl: z.string().optional(),
  /** Agent: its thread, its turn in it, its mode and (chat mode) its reply. */
  threadId: z.uuid().optional(),
  threadTurn: z.int().min(1).optional(),
  mode: z.enum(['extract', 'chat']).optional(),
  message: z.string().optional(),
});
export type ExtractJobReply = z.output<typeof ExtractJobReply>;

export const ExtractCancelReply = z.object({ status: ExtractStatus });
export type ExtractCancelReply = z.output<typeof ExtractCancelReply>;

/** The team's agent jobs created before `before` (epoch ms), newest first. */
export const AgentListRequest = z.object({
  teamId: z.string().min(1),
  before: z.int().min(0).optional(),
  limit: z.int().min(1).max(100),
});
export type AgentListRequest = z.output<typeof AgentListRequest>;

export const AgentListEntry = z.object({
  id: z.uuid(),
  createdAt: z.string(),
  status: z.enum(['processing', 'completed', 'failed']),
  prompt: z.string(),
  urls: z.array(z.string()),
  schema: z.record(z.string(), z.unknown()).optional(),
  model: z.string().optional(),
  effort: z.enum(['low', 'medium', 'high']).optional(),
  origin: z.string().optional(),
  integration: z.string().optional(),
});
export type AgentListEntry = z.output<typeof AgentListEntry>;

/** `nextBefore`: the `before` of the next page, when there is one. */
export const AgentListReply = z.object({
  agents: z.array(AgentListEntry),
  nextBefore: z.int().min(0).optional(),
});
export type AgentListReply = z.output<typeof AgentListReply>;

/** An agent job's trace: its run and steps as events (the public AgentTraceEvent shape). */
export const AgentTraceReply = z.object({
  events: z.array(z.record(z.string(), z.unknown())),
  creditsUsed: z.int().min(0),
  running: z.boolean(),
});
export type AgentTraceReply = z.output<typeof AgentTraceReply>;

export const AgentThreadRequest = z.object({
  teamId: z.string().min(1),
  threadId: z.uuid(),
  includeData: z.boolean().default(false),
});
export type AgentThreadRequest = z.output<typeof AgentThreadRequest>;

export const AgentThreadReply = z.object({
  id: z.uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
  status: z.enum(['idle', 'running']),
  /** As GET /v2/agent/threads/{threadId} lists them (the public schema). */
  runs: z.array(AgentThreadRun),
});
export type AgentThreadReply = z.output<typeof AgentThreadReply>;

export const AgentSnapshotRequest = z.object({
  teamId: z.string().min(1),
  jobId: z.string().min(1).max(200),
  snapshotId: z.string().min(1).max(200),
});
export type AgentSnapshotRequest = z.output<typeof AgentSnapshotRequest>;
export const AgentSnapshotReply = z.object({ snapshot: z.string() });
export type AgentSnapshotReply = z.output<typeof AgentSnapshotReply>;

const BATCH = 'batch' as const;

export const EXTRACT_RPC = {
  create: defineRpc('wds.batch.v1.extract.create', BATCH, ExtractCreateRequest, ExtractCreateReply),
  /** An extract or an agent job: NOT_FOUND (unknown, expired), FORBIDDEN (another team's). */
  status: defineRpc('wds.batch.v1.extract.status', BATCH, JobRef, ExtractJobReply),
  agentCreate: defineRpc('wds.batch.v1.agent.create', BATCH, AgentCreateRequest, AgentCreateReply),
  /** Cancels an agent job (a no-op once it ended). */
  agentCancel: defineRpc('wds.batch.v1.agent.cancel', BATCH, JobRef, ExtractCancelReply),
  /** The team's agent jobs, newest first (unexpired only). */
  agentList: defineRpc('wds.batch.v1.agent.list', BATCH, AgentListRequest, AgentListReply),
  /** An agent job's trace (NOT_FOUND / FORBIDDEN like status). */
  agentTrace: defineRpc('wds.batch.v1.agent.trace', BATCH, JobRef, AgentTraceReply),
  /** A thread of the team's agent jobs (NOT_FOUND when none of its runs is left). */
  agentThread: defineRpc('wds.batch.v1.agent.thread', BATCH, AgentThreadRequest, AgentThreadReply),
  /** One artifact of an agent job by the snapshotId its trace names (NOT_FOUND otherwise). */
  agentSnapshot: defineRpc('wds.batch.v1.agent.snapshot', BATCH, AgentSnapshotRequest, AgentSnapshotReply),
} as const;
