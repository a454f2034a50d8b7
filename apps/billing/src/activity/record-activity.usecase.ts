import { Inject, Injectable } from '@nestjs/common';
import type { ActivityBatch, ActivityEndpoint, ActivityEvent, TokenUsageEvent } from '@wds/contracts';
import { Database, WriteBatcher, type Queryable } from '@wds/database';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { BillingConfig } from '../config';
import { ActivityPartitions } from './activity-partitions';
import { attributeJobUsage, lockJobsForAttribution } from './usage-attribution';

const DAY_MS = 86_400_000;
/** Events dated further ahead than this (a wrong clock) are not recorded. */
const FUTURE_TOLERANCE_MS = DAY_MS;
/** Batches (messages) written per transaction at most. */
const BATCHES_PER_WRITE = 50;

/**
 * Endpoints whose work is charged after the call (per page or per minute): their activity event
 * also records which API key started the job, so that later usage counts for that key.
 */
const JOB_ENDPOINTS: ReadonlySet<ActivityEndpoint> = new Set([
  'crawl',
  'batch_scrape',
  'extract',
  'agent',
  'browser',
  'interact',
  'deep_research',
  'llmstxt',
]);

export interface RecordOutcome {
  activity: number;
  tokens: number;
}

/**
 * Records activity events and LLM token usage from WDS_ACTIVITY_V1, each event id once. Batches
 * that arrive together share one transaction (natural batching): the rows of every message in it
 * go in one INSERT per table.
 */
@Injectable()
export class RecordActivity {
  private readonly batcher: WriteBatcher<ActivityBatch, RecordOutcome>;

  constructor(
    private readonly db: Database,
    private readonly partitions: ActivityPartitions,
    @Inject(APP_CONFIG) private readonly config: BillingConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.batcher = new WriteBatcher((batches) => this.write(batches), BATCHES_PER_WRITE);
  }

  /** Resolves once the batch is committed (new rows counted in the outcome of the whole write). */
  execute(batch: ActivityBatch): Promise<RecordOutcome> {
    return this.batcher.add(batch);
  }

  private async write(batches: ActivityBatch[]): Promise<RecordOutcome[]> {
    const now = Date.now();
    const oldest = now - this.config.WDS_ACTIVITY_RETENTION_DAYS * DAY_MS;
    const activity: ActivityEvent[] = [];
    for (const b of batches) {
      for (const e of b.activity) {
        if (e.createdAt < oldest || e.createdAt > now + FUTURE_TOLERANCE_MS) {
          this.logger.warn(
            { eventId: e.eventId, createdAt: e.createdAt },
            'activity event outside retention; not recorded',
          );
          continue;
        }
        activity.push(e);
      }
    }
    const tokens = batches.flatMap((b) => b.tokens);
    await this.partitions.ensureFor(activity.map((e) => e.createdAt));
    const outcome = await this.db.tx(async (q) => ({
      activity: await insertActivity(q, activity),
      tokens: await insertTokens(q, tokens),
    }));
    // Every batch of the write shares its outcome (the counts serve tests and logs only).
    return batches.map(() => outcome);
  }
}

async function insertActivity(q: Queryable, events: ActivityEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  // One row per event id even when a write carries the same event twice (a republished batch).
  const unique = [...new Map(events.map((e) => [`${e.eventId}\n${e.createdAt}`, e])).values()];
  const res = await q.query(
    `INSERT INTO billing.activity (team_id, created_at, id, event_id, endpoint, api_version, target, api_key, credits)
     SELECT e.team_id, to_timestamp(e.created_ms::double precision / 1000), e.id, e.event_id, e.endpoint,
            e.api_version, e.target, e.api_key, e.credits
     FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])
       AS e(team_id, created_ms, id, event_id, endpoint, api_version, target, api_key, credits)
     ORDER BY e.created_ms
     ON CONFLICT (event_id, created_at) DO NOTHING`,
    [
      unique.map((e) => e.teamId),
      unique.map((e) => e.createdAt),
      unique.map((e) => e.id),
      unique.map((e) => e.eventId),
      unique.map((e) => e.endpoint),
      unique.map((e) => e.apiVersion),
      unique.map((e) => e.target),
      unique.map((e) => e.apiKey),
      unique.map((e) => e.credits),
    ],
  );
  const jobs = unique.filter((e) => JOB_ENDPOINTS.has(e.endpoint) && e.apiKey !== null);
  if (jobs.length > 0) {
    await lockJobsForAttribution(
      q,
      jobs.map((e) => e.id),
    );
    await q.query(
      `INSERT INTO billing.job_keys (job_id, team_id, api_key)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (job_id) DO NOTHING`,
      [jobs.map((e) => e.id), jobs.map((e) => e.teamId), jobs.map((e) => e.apiKey)],
    );
    await attributeJobUsage(
      q,
      jobs.map((e) => e.id),
    );
  }
  return res.rowCount ?? 0;
}

async function insertTokens(q: Queryable, events: TokenUsageEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const unique = [...new Map(events.map((e) => [e.eventId, e])).values()];
  const res = await q.query<{ n: string }>(
    `WITH ins AS (
       INSERT INTO billing.token_events (event_id, team_id, api_key, endpoint, job_id, model, input_tokens, output_tokens, at)
       SELECT t.event_id, t.team_id, t.api_key, t.endpoint, t.job_id, t.model, t.input_tokens, t.output_tokens,
              to_timestamp(t.at_ms::double precision / 1000)
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[])
         AS t(event_id, team_id, api_key, endpoint, job_id, model, input_tokens, output_tokens, at_ms)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING team_id, api_key, input_tokens, output_tokens, at),
     mon AS (
       INSERT INTO billing.usage_monthly (team_id, month, api_key, llm_input_tokens, llm_output_tokens)
       SELECT team_id, date_trunc('month', at AT TIME ZONE 'UTC')::date, COALESCE(api_key, ''),
              sum(input_tokens), sum(output_tokens)
       FROM ins GROUP BY 1, 2, 3
       ON CONFLICT (team_id, month, api_key) DO UPDATE SET
         llm_input_tokens = billing.usage_monthly.llm_input_tokens + EXCLUDED.llm_input_tokens,
         llm_output_tokens = billing.usage_monthly.llm_output_tokens + EXCLUDED.llm_output_tokens)
     SELECT count(*) AS n FROM ins`,
    [
      unique.map((e) => e.eventId),
      unique.map((e) => e.teamId),
      unique.map((e) => e.apiKey),
      unique.map((e) => e.endpoint),
      unique.map((e) => e.jobId ?? null),
      unique.map((e) => e.model ?? null),
      unique.map((e) => e.inputTokens),
      unique.map((e) => e.outputTokens),
      unique.map((e) => e.at),
    ],
  );
  return Number(res.rows[0].n);
}
