import type { Queryable } from '@wds/database';

/**
 * Serialises, per job, the two writers that meet in attribution: a usage report inserting page
 * usage of the job (which takes the job's key from `job_keys` if it is there) and the job's
 * activity event (which inserts into `job_keys`, then attributes the job's unkeyed usage). Without
 * it, under READ COMMITTED each transaction can miss the other's uncommitted row and the usage stays
 * without a key until the maintenance sweep. Taken (transaction-scoped, in one order: by lock id)
 * before the statement that reads the other's rows, and before any lock the other writer waits for.
 */
export async function lockJobsForAttribution(q: Queryable, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await q.query(
    `SELECT pg_advisory_xact_lock(l.id)
     FROM (SELECT DISTINCT hashtextextended('billing.job-usage:' || j, 0) AS id FROM unnest($1::text[]) AS j
           ORDER BY 1) l`,
    [jobIds],
  );
}

/** The job a usage key names (`<kind>:<job id>:<page>`); none for per-request keys (`idem:`, `req:`). */
export function jobIdOfUsageKey(key: string): string | null {
  const [kind, job, page] = key.split(':');
  return kind !== 'idem' && kind !== 'req' && job !== undefined && page !== undefined && page !== ''
    ? job
    : null;
}

/**
 * Page usage of a job (usage key `<kind>:<job id>:<page>`) that billing recorded before it knew
 * which API key started the job counts for no key until the job's activity event arrives; then
 * its rows and their credits in `usage_monthly` move to that key. `jobIds` limits the work to
 * those jobs (after recording their events); without it every attributable row is moved (sweeper).
 */
export async function attributeJobUsage(q: Queryable, jobIds?: readonly string[]): Promise<number> {
  const res = await q.query<{ moved: string }>(
    `WITH moved AS (
       UPDATE billing.usage u SET api_key = jk.api_key
       FROM billing.job_keys jk
       WHERE u.api_key IS NULL AND u.job_id IS NOT NULL AND u.job_id = jk.job_id AND u.team_id = jk.team_id
         AND ($1::text[] IS NULL OR u.job_id = ANY($1::text[]))
       RETURNING u.team_id, u.api_key, u.amount, u.created_at),
     agg AS (
       SELECT team_id, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month, api_key, sum(amount) AS amount
       FROM moved GROUP BY 1, 2, 3),
     unkeyed AS (
       UPDATE billing.usage_monthly m SET credits = GREATEST(0, m.credits - s.amount)
       FROM (SELECT team_id, month, sum(amount) AS amount FROM agg GROUP BY 1, 2) s
       WHERE m.team_id = s.team_id AND m.month = s.month AND m.api_key = ''),
     keyed AS (
       INSERT INTO billing.usage_monthly (team_id, month, api_key, credits)
       SELECT team_id, month, api_key, amount FROM agg
       ON CONFLICT (team_id, month, api_key) DO UPDATE SET credits = billing.usage_monthly.credits + EXCLUDED.credits)
     SELECT COALESCE(sum(amount), 0) AS moved FROM agg`,
    [jobIds ?? null],
  );
  return Number(res.rows[0].moved);
}
