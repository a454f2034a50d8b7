import type { JobRow, JobStatus } from './job.types';

/** The columns toJob reads. */
export const JOB_COLUMNS = `id, team_id, kind, status, url, options, page_limit, concurrency, delay_ms, webhook,
  zero_data_retention, discovered, succeeded, failed, inflight, credits_used, seeded, robots_txt, error,
  created_at, progressed_at, expires_at, reopened`;

export interface RawJob {
  id: string;
  team_id: string;
  kind: string;
  status: JobStatus;
  url: string;
  options: Record<string, unknown>;
  page_limit: number;
  concurrency: number;
  delay_ms: number;
  webhook: Record<string, unknown> | null;
  zero_data_retention: boolean;
  discovered: number;
  succeeded: number;
  failed: number;
  inflight: number;
  credits_used: string;
  seeded: boolean;
  robots_txt: string | null;
  error: string | null;
  created_at: Date;
  progressed_at: Date;
  expires_at: Date;
  reopened: number;
}

export function toJob(r: RawJob): JobRow {
  return {
    id: r.id,
    teamId: r.team_id,
    kind: r.kind,
    status: r.status,
    url: r.url,
    options: r.options,
    pageLimit: r.page_limit,
    concurrency: r.concurrency,
    delayMs: r.delay_ms,
    webhook: r.webhook ?? undefined,
    zeroDataRetention: r.zero_data_retention,
    discovered: r.discovered,
    succeeded: r.succeeded,
    failed: r.failed,
    inflight: r.inflight,
    creditsUsed: Number(r.credits_used),
    seeded: r.seeded,
    robotsTxt: r.robots_txt ?? undefined,
    error: r.error ?? undefined,
    createdAt: r.created_at,
    progressedAt: r.progressed_at,
    expiresAt: r.expires_at,
    reopened: r.reopened,
  };
}
