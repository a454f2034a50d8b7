import type { ExtractJobReply } from '@wds/contracts';
import type { JobRow } from '@wds/jobs';
import { mergeExtracts } from './merge-extracts';
import type { AgentRecord, ExtractJobOptions, ExtractPageRecord } from './extract-options';

/** A page that failed, as the job's errors list it. */
export interface PageFailure {
  url: string;
  error: string;
}

type JobState = Pick<JobRow, 'status' | 'error' | 'expiresAt' | 'creditsUsed'>;

/** How many page failures a reply names (the rest are counted). */
const NAMED_FAILURES = 3;

/**
 * The state of an extract job as GET /v2/extract/{id} tells it: `processing` while pages run
 * (data `[]`), then the merged answer; a job whose pages all failed, or gave no answer, is `failed`
 * with their reasons. Credits are the job's; tokens are the pages' extraction tokens and those of
 * the web search query that found pages for it.
 */
export function extractReply(
  job: JobState,
  options: Pick<ExtractJobOptions, 'schema' | 'showSources' | 'searchTokens'>,
  pages: readonly ExtractPageRecord[],
  failures: readonly PageFailure[],
): ExtractJobReply {
  const base = {
    kind: 'extract' as const,
    expiresAt: job.expiresAt.toISOString(),
    tokensUsed: pages.reduce(
      (sum, p) => sum + Math.max(0, Math.round(p.tokensUsed)),
      Math.max(0, Math.round(options.searchTokens ?? 0)),
    ),
    creditsUsed: Math.max(0, Math.round(job.creditsUsed)),
  };
  if (job.status === 'scraping') return { ...base, status: 'processing', data: [] };
  if (job.status === 'cancelled')
    return { ...base, status: 'cancelled', data: [], error: 'The extract job was cancelled' };
  if (job.status === 'failed') {
    return {
      ...base,
      status: 'failed',
      data: [],
      error: job.error ?? describeFailures(failures) ?? 'The extract job failed',
    };
  }
  const answered = pages.filter((p) => p.json !== undefined);
  if (answered.length === 0) {
    const why =
      describeFailures(failures) ??
      pages.map((p) => p.warning).find((w): w is string => !!w) ??
      'the model gave no valid answer';
    return { ...base, status: 'failed', data: [], error: `No page gave an answer: ${why}` };
  }
  const merged = mergeExtracts(
    answered.map((p) => ({ url: p.metadata.sourceURL ?? p.metadata.url ?? '', data: p.json })),
    options.schema,
  );
  const warnings = [
    ...(failures.length > 0
      ? [`${failures.length} page(s) could not be read: ${describeFailures(failures)}`]
      : []),
    ...(pages.length > answered.length
      ? [`${pages.length - answered.length} page(s) gave no valid answer and were left out`]
      : []),
  ];
  return {
    ...base,
    status: 'completed',
    data: merged.data,
    ...(options.showSources ? { sources: merged.sources } : {}),
    ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
  };
}

/**
 * The state of an agent job. firecrawl-py accepts only processing, completed and failed here, so
 * a cancelled job reads as failed with the reason; `data` is the schema's answer when a schema was
 * given, otherwise the agent's text answer.
 */
export function agentReply(
  job: JobState,
  record: AgentRecord | undefined,
  failure: PageFailure | undefined,
  live: AgentRecord['steps'] = [],
): ExtractJobReply {
  const base = {
    kind: 'agent' as const,
    expiresAt: job.expiresAt.toISOString(),
    tokensUsed: Math.max(0, Math.round(record?.tokensUsed ?? 0)),
    creditsUsed: Math.max(0, Math.round(job.creditsUsed)),
  };
  // While it runs: the steps of its current run so far.
  if (job.status === 'scraping')
    return { ...base, status: 'processing', ...(live.length ? { steps: live } : {}) };
  if (job.status === 'cancelled') {
    return {
      ...base,
      status: 'failed',
      error: 'The agent job was cancelled',
      ...(record ? agentDetails(record) : {}),
      stopReason: 'cancelled',
    };
  }
  // A run that ended without an answer keeps its record on the failed task (steps, tokens).
  if (job.status === 'failed' || !record || failure) {
    return {
      ...base,
      status: 'failed',
      error: job.error ?? failure?.error ?? 'The agent job failed',
      ...(record ? agentDetails(record) : {}),
    };
  }
  return {
    ...base,
    status: 'completed',
    data: record.data !== undefined ? record.data : record.output,
    ...agentDetails(record),
  };
}

function agentDetails(record: AgentRecord) {
  return {
    steps: record.steps,
    ...(record.finalUrl ? { finalUrl: record.finalUrl } : {}),
    ...(record.stopReason ? { stopReason: record.stopReason } : {}),
  };
}

function describeFailures(failures: readonly PageFailure[]): string | undefined {
  if (failures.length === 0) return undefined;
  const named = failures.slice(0, NAMED_FAILURES).map((f) => `${f.url}: ${f.error}`);
  const more = failures.length - named.length;
  return named.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
