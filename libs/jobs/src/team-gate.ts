import type { Queryable } from '@wds/database';
import type { JobRow } from './job.types';

/** A job of some service that should try to claim team slots now. */
export interface WakeTarget {
  jobId: string;
  /** `crawl` or `batch`: which service's replicas claim for it. */
  kind: string;
}

/** Delivers wake-ups to the services owning the jobs (see TeamWake); fire and forget. */
export interface TeamWaker {
  wake(targets: readonly WakeTarget[]): void;
}

/** A page claimed for dispatch. */
export interface GatePage {
  urlKey: string;
  url: string;
  depth: number;
}

type GateJob = Pick<JobRow, 'id' | 'teamId' | 'kind' | 'concurrency' | 'inflight'>;

/**
 * The team-wide page limit shared by every page job of a team, whichever service runs it, in the
 * shared `jobs` schema (libs/jobs/sql/team-slots.sql). Used inside JobStore transactions that
 * already hold the job's row lock; claims also lock the team's `team_limits` row (always after
 * the job row, so the lock order is fixed and cannot deadlock), which serialises every claim of
 * the team across services and replicas.
 *
 * Fairness: a job the limit holds back records since when it waits; a freed slot goes to the
 * longest waiter, and a waiter that got a slot goes to the back of the line (round robin), so one
 * big job cannot starve a small one. Jobs ahead that are owed a slot are returned for waking.
 *
 * finish_page() (sql/page-finish.sql) repeats claim and update in PL/pgSQL for the page-finish
 * path: a change to either belongs in both.
 */
export class TeamGate {
  constructor(private readonly leaseMs: number) {}

  /** Sets the team's limit (the latest job creation carries the team's current setting). */
  async setLimit(q: Queryable, teamId: string, maxInflight: number): Promise<void> {
    await q.query(
      `INSERT INTO jobs.team_limits (team_id, max_inflight) VALUES ($1, $2)
       ON CONFLICT (team_id) DO UPDATE SET max_inflight = EXCLUDED.max_inflight, updated_at = now()
       WHERE jobs.team_limits.max_inflight <> EXCLUDED.max_inflight`,
      [teamId, maxInflight],
    );
  }

  /**
   * Claims up to `want` queued pages of the job (in `pagesTable`) as far as the team allows, and
   * records the job's slots and waiting state, under the team's lock. Returns the pages and the
   * waiters ahead of the job for whom it left slots free.
   */
  async claim(
    q: Queryable,
    job: GateJob,
    want: number,
    pagesTable: string,
  ): Promise<{ pages: GatePage[]; wake: WakeTarget[] }> {
    const limit = await this.lockLimit(q, job);
    // One statement after the lock, so its snapshot sees every claim committed before the lock
    // was granted: team room, waiters ahead (each owed one slot), the claim, and the job's own row.
    // A job held back by the team waits: at the back of the line once served, in place otherwise.
    const { rows } = await q.query<{ pages: GatePage[]; free: number; ahead: WakeTarget[] }>(
      `WITH own AS (SELECT (SELECT wait_since FROM jobs.team_jobs WHERE job_id = $2) AS since),
       ahead AS (
         SELECT w.job_id, w.kind, w.wait_since FROM jobs.team_jobs w, own
         WHERE w.team_id = $1 AND w.job_id <> $2 AND w.wait_since IS NOT NULL AND w.lease_until > now()
           AND (own.since IS NULL OR w.wait_since < own.since)),
       room AS (
         SELECT r.free, greatest(0, least($5::int, r.free - (SELECT count(*)::int FROM ahead))) AS allowed
         FROM (SELECT $4::int - $6::int - (SELECT coalesce(sum(t.inflight), 0)::int FROM jobs.team_jobs t
                 WHERE t.team_id = $1 AND t.job_id <> $2 AND t.lease_until > now()) AS free) r),
       claimed AS (
         UPDATE ${pagesTable} SET status = 'dispatched', dispatched_at = now(), dispatches = dispatches + 1
         WHERE job_id = $2 AND url_key IN (
           SELECT url_key FROM ${pagesTable} WHERE job_id = $2 AND status = 'queued' ORDER BY depth, id
           LIMIT (SELECT allowed FROM room))
         RETURNING url_key, url, depth),
       n AS (SELECT count(*)::int AS n FROM claimed),
       mine AS (
         INSERT INTO jobs.team_jobs (job_id, team_id, kind, inflight, wait_since, lease_until)
         SELECT $2, $1, $3, $6 + n.n,
           CASE WHEN n.n <> room.allowed OR n.n >= $5 THEN NULL WHEN n.n > 0 THEN now() ELSE coalesce(own.since, now()) END,
           now() + $7 * interval '1 millisecond'
         FROM n, room, own
         ON CONFLICT (job_id) DO UPDATE SET inflight = EXCLUDED.inflight, wait_since = EXCLUDED.wait_since,
           lease_until = EXCLUDED.lease_until)
       SELECT
         (SELECT coalesce(json_agg(json_build_object('urlKey', url_key, 'url', url, 'depth', depth)), '[]') FROM claimed) AS pages,
         (SELECT free FROM room) AS free,
         (SELECT coalesce(json_agg(json_build_object('jobId', job_id, 'kind', kind) ORDER BY wait_since), '[]') FROM ahead) AS ahead`,
      [job.teamId, job.id, job.kind, limit, want, job.inflight, this.leaseMs],
    );
    const { pages, free, ahead } = rows[0];
    return { pages, wake: ahead.slice(0, Math.max(0, free - pages.length)) };
  }

  /**
   * Records the job's slots when it claims nothing (its own limit, or nothing queued), or drops
   * them when it has ended; returns the waiters its freed slots should go to.
   */
  async update(q: Queryable, job: GateJob, inflight: number | 'ended'): Promise<WakeTarget[]> {
    const write =
      inflight === 'ended'
        ? `DELETE FROM jobs.team_jobs WHERE job_id = $2`
        : `INSERT INTO jobs.team_jobs (job_id, team_id, kind, inflight, lease_until)
           VALUES ($2, $1, $3, $4, now() + $5 * interval '1 millisecond')
           ON CONFLICT (job_id) DO UPDATE SET inflight = EXCLUDED.inflight, wait_since = NULL,
             lease_until = EXCLUDED.lease_until`;
    const params =
      inflight === 'ended' ? [job.teamId, job.id] : [job.teamId, job.id, job.kind, inflight, this.leaseMs];
    // The read does not see this statement's own write, hence the job is left out of `used`.
    const { rows } = await q.query<{ max: number; used: number; waiters: WakeTarget[] }>(
      `WITH w AS (${write} RETURNING 1)
       SELECT l.max_inflight AS max,
         (SELECT coalesce(sum(t.inflight), 0)::int FROM jobs.team_jobs t
          WHERE t.team_id = $1 AND t.job_id <> $2 AND t.lease_until > now()) AS used,
         (SELECT coalesce(json_agg(json_build_object('jobId', x.job_id, 'kind', x.kind) ORDER BY x.wait_since), '[]')
          FROM jobs.team_jobs x
          WHERE x.team_id = $1 AND x.job_id <> $2 AND x.wait_since IS NOT NULL AND x.lease_until > now()) AS waiters
       FROM jobs.team_limits l WHERE l.team_id = $1`,
      params,
    );
    if (!rows[0]) return [];
    const own = inflight === 'ended' ? 0 : inflight;
    return rows[0].waiters.slice(0, Math.max(0, rows[0].max - rows[0].used - own));
  }

  /** Keeps the slots of the schema's running jobs counting; drops rows of jobs long gone. */
  async renew(q: Queryable, jobsTable: string): Promise<void> {
    await q.query(
      `UPDATE jobs.team_jobs t SET lease_until = now() + $1 * interval '1 millisecond'
       FROM ${jobsTable} j WHERE j.id = t.job_id AND j.status = 'scraping'`,
      [this.leaseMs],
    );
    await q.query(
      `DELETE FROM jobs.team_jobs t USING ${jobsTable} j WHERE j.id = t.job_id AND j.status <> 'scraping'`,
    );
    await q.query(`DELETE FROM jobs.team_jobs WHERE lease_until < now() - interval '1 day'`);
  }

  /** Running jobs of the schema that wait for team slots, longest waiting first. */
  async waiting(q: Queryable, jobsTable: string, limit: number): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT t.job_id AS id FROM jobs.team_jobs t JOIN ${jobsTable} j ON j.id = t.job_id
       WHERE t.wait_since IS NOT NULL AND j.status = 'scraping' ORDER BY t.wait_since LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  async forget(q: Queryable, jobIds: readonly string[]): Promise<void> {
    if (jobIds.length) await q.query(`DELETE FROM jobs.team_jobs WHERE job_id = ANY($1::uuid[])`, [jobIds]);
  }

  private async lockLimit(q: Queryable, job: GateJob): Promise<number> {
    const lock = () =>
      q.query<{ max: number }>(
        `SELECT max_inflight AS max FROM jobs.team_limits WHERE team_id = $1 FOR UPDATE`,
        [job.teamId],
      );
    let { rows } = await lock();
    if (!rows[0]) {
      // A job created before team limits were recorded: its own concurrency is the best estimate.
      await q.query(
        `INSERT INTO jobs.team_limits (team_id, max_inflight) VALUES ($1, $2) ON CONFLICT (team_id) DO NOTHING`,
        [job.teamId, job.concurrency],
      );
      ({ rows } = await lock());
    }
    return rows[0].max;
  }
}
