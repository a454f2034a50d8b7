import type { AgentCreateRequest, Document, ExtractCreateRequest, ScrapeOptions } from '@wds/contracts';
import type { JobRow } from '@wds/jobs';

/** A page's scrape and extraction must end within this unless the request sets `timeout` (the model runs in it). */
export const EXTRACT_PAGE_TIMEOUT_MS = 300_000;

/** What an extract job keeps in its row's `options`. */
export interface ExtractJobOptions {
  /** Every page's scrape request but its URL: the `json` format with the job's schema and prompt. */
  scrapeOptions: ScrapeOptions;
  schema?: Record<string, unknown>;
  showSources: boolean;
  /** The URLs and globs as requested. */
  requested: string[];
  /** Tokens of the gateway's web search query for the job (`ExtractCreateRequest.searchTokens`). */
  searchTokens?: number;
}

/** What an agent job keeps in its row's `options`. */
export interface AgentJobOptions {
  prompt: string;
  urls: string[];
  schema?: Record<string, unknown>;
  maxCredits: number;
  maxSteps: number;
  allowedDomains?: string[];
  /** As the caller asked (GET /v2/agent lists them). */
  model?: string;
  effort?: 'low' | 'medium' | 'high';
  origin?: string;
  integration?: string;
  /** extract (default, the answer in `data`) or chat (a text reply in `message`). */
  mode?: 'extract' | 'chat';
  /** Its thread (none under zero data retention) and its turn in it. */
  threadId?: string;
  threadTurn?: number;
  /** What the run is told of the thread's earlier turns (threadContext), before its prompt. */
  context?: string;
}

/** What is stored for an extract page (in place of the scraped document): its answer and cost. */
export interface ExtractPageRecord {
  json?: unknown;
  warning?: string;
  metadata: { sourceURL?: string; url?: string; statusCode?: number; title?: string };
  tokensUsed: number;
}

/** What is stored for an agent job's task when the agent ended. */
export interface AgentRecord {
  output: string;
  data?: unknown;
  steps: { action: string; target?: string; outcome?: string }[];
  tokensUsed: number;
  browserMs: number;
  finalUrl?: string;
  stopReason?: string;
  /** The model that ran the job (records from before it was kept have none). */
  model?: string;
}

/** A step as the job's status shows it (`outcome: detail` in one string). */
export function statusStep(s: {
  action: string;
  target?: string;
  outcome: string;
  detail?: string;
}): AgentRecord['steps'][number] {
  return {
    action: s.action,
    ...(s.target ? { target: s.target } : {}),
    outcome: s.detail ? `${s.outcome}: ${s.detail}` : s.outcome,
  };
}

export function extractOptionsOf(job: Pick<JobRow, 'options'>): ExtractJobOptions {
  return job.options as unknown as ExtractJobOptions;
}

export function agentOptionsOf(job: Pick<JobRow, 'options'>): AgentJobOptions {
  return job.options as unknown as AgentJobOptions;
}

/**
 * The scrape request of every page of an extract job: the caller's scrape options with the `json`
 * format alone (the system prompt goes before the prompt: the format has one instruction).
 */
export function extractJobOptions(cmd: ExtractCreateRequest): ExtractJobOptions {
  const prompt = [cmd.systemPrompt?.trim(), cmd.prompt?.trim()].filter((p): p is string => !!p).join('\n\n');
  return {
    scrapeOptions: {
      ...cmd.scrapeOptions,
      formats: [
        {
          type: 'json',
          ...(cmd.schema ? { schema: cmd.schema } : {}),
          ...(prompt ? { prompt } : {}),
        },
      ],
      timeout: cmd.pageTimeoutMs ?? EXTRACT_PAGE_TIMEOUT_MS,
    },
    ...(cmd.schema ? { schema: cmd.schema } : {}),
    showSources: cmd.showSources,
    requested: cmd.urls,
    ...(cmd.searchTokens > 0 ? { searchTokens: cmd.searchTokens } : {}),
  };
}

export function agentJobOptions(cmd: AgentCreateRequest): AgentJobOptions {
  return {
    prompt: cmd.prompt,
    urls: cmd.urls,
    ...(cmd.schema ? { schema: cmd.schema } : {}),
    maxCredits: cmd.maxCredits,
    maxSteps: cmd.maxSteps,
    ...(cmd.allowedDomains ? { allowedDomains: cmd.allowedDomains } : {}),
    ...(cmd.model ? { model: cmd.model } : {}),
    ...(cmd.effort ? { effort: cmd.effort } : {}),
    ...(cmd.origin ? { origin: cmd.origin } : {}),
    ...(cmd.integration ? { integration: cmd.integration } : {}),
    mode: cmd.mode,
  };
}

/** Keeps of a scraped extract page only what the job reads back. */
export function extractPageRecord(document: Document, tokensUsed: number): ExtractPageRecord {
  const m = document.metadata ?? {};
  return {
    ...(document.json !== undefined ? { json: document.json } : {}),
    ...(document.warning ? { warning: document.warning } : {}),
    metadata: {
      ...(m.sourceURL ? { sourceURL: m.sourceURL } : {}),
      ...(m.url ? { url: m.url } : {}),
      ...(m.statusCode !== undefined ? { statusCode: m.statusCode } : {}),
      ...(typeof m.title === 'string' ? { title: m.title } : {}),
    },
    tokensUsed,
  };
}
