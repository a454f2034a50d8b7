import type { Queryable } from '@wds/database';

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
