import type { Queryable } from '@wds/database';
import { JobReader, type TxRunner } from './job-reader';
import { JOB_COLUMNS, toJob, type RawJob } from './job-rows';
import type { JobStatus, JobRow, NewJob, PageCandidate, ClaimedPage, PageResult } from './job.types';
import { TeamGate, type GatePage, type TeamWaker, type WakeTarget } from './team-gate';

/** Pages handed back per claim at most, whatever the job's concurrency. */
const MAX_CLAIM = 500;
/** How long a job's team slots count without a renewal by its service's watchdog. */
export const DEFAULT_TEAM_LEASE_MS = 120_000;

export interface JobStoreOptions {
  /** Told after each commit which jobs of the team should claim freed slots (see TeamWake). */
  teamWaker?: TeamWaker;
  /** Lease of a job's team slots; must exceed the watchdog interval several times over. */
  teamLeaseMs?: number;
}

export interface FinishOutcome {
  /** False when the page was already finished (a redelivery): nothing changed. */
  applied: boolean;
  /** Pages to publish now (claimed under the job's concurrency). */
  dispatch: ClaimedPage[];
  /** Set when this transaction ended the job. */
  finished?: 'completed';
  /** The job as this transaction left it; set with `finished` (its events need the current round). */
  job?: JobRow;
  /** Completion sequence of a stored document. */
  seq?: number;
}

/** One page of a `finishPages` batch. */
export interface PageFinish {
  urlKey: string;
  result: PageResult;
  /** Links the page led to (crawl), added to the frontier within the job's limit. */
  discovered?: readonly PageCandidate[];
  /** Links robots.txt kept out, for the job's errors. */
  blocked?: readonly string[];
}

export interface AddOutcome {
  inserted: number;
  dispatch: ClaimedPage[];
  finished?: 'completed';
  /** The job as this transaction left it (set with `finished`, `reopened`, and by claim/reconcile). */
  job?: JobRow;
  /** True when a completed job took new pages and runs again. */
  reopened?: boolean;
}

type Waking = { wake: WakeTarget[] };
type Settled = { dispatch: ClaimedPage[]; finished?: 'completed'; job: JobRow; wake: WakeTarget[] };
/** A row of finish_pages(): the outcomes, and the job's columns when the batch completed the job. */
type RawFinish = RawJob & {
  applied: boolean[];
  seq: (number | null)[];
  dispatch: GatePage[];
  wake: WakeTarget[];
  finished: boolean;
  teamId: string;
};

/**
 * The frontier, the visited set and the counters of page jobs, in PostgreSQL (tables in
 * libs/jobs/sql, in the owning service's schema). Every change to a job's pages happens in a
 * transaction that first locks the job row, so the page limit is exact, a URL is visited once per
 * job (primary key (job_id, url_key)), `inflight` never exceeds the job's concurrency nor the
 * team's pages in flight the team limit (TeamGate), and the job completes exactly when its last
 * page finishes.
 */
export class JobStore extends JobReader {
  private readonly gate: TeamGate;
  private readonly leaseMs: number;
  private readonly finishFn: string;

  constructor(
    db: TxRunner,
    schema: string,
    private readonly opts: JobStoreOptions = {},
  ) {
    super(db, schema);
    this.leaseMs = opts.teamLeaseMs ?? DEFAULT_TEAM_LEASE_MS;
    this.gate = new TeamGate(this.leaseMs);
    this.finishFn = `${schema}.finish_pages`;
  }

  async create(job: NewJob): Promise<void> {
    await this.db.query(
      `INSERT INTO ${this.jobs} (id, team_id, kind, url, options, page_limit, concurrency, delay_ms, webhook,
         zero_data_retention, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + $11 * interval '1 millisecond')
       ON CONFLICT (id) DO NOTHING`,
      [
        job.id,
        job.teamId,
        job.kind,
        job.url,
        JSON.stringify(job.options),
        job.pageLimit,
        job.concurrency,
        job.delayMs,
        job.webhook ? JSON.stringify(job.webhook) : null,
        job.zeroDataRetention,
        job.retentionMs,
      ],
    );
    if (job.teamConcurrency !== undefined) {
      await this.gate.setLimit(this.db, job.teamId, Math.max(1, job.teamConcurrency));
    }
  }

  /**
   * Adds pages to the job (the start pages, or links found on a page) within its limit, marks it
   * seeded when asked, and claims pages to dispatch. Only URLs whose key is new are inserted.
   * With `reopen`, a completed job that gets new pages runs again (status `scraping`, one more
   * round, retention extended to at least `retentionMs` from now).
   */
  async addPages(
    jobId: string,
    candidates: readonly PageCandidate[],
    opts: {
      seeded?: boolean;
      blocked?: readonly string[];
      robotsTxt?: string | null;
      reopen?: { retentionMs: number };
    } = {},
  ): Promise<AddOutcome> {
    return this.withWake<AddOutcome & Waking>(async (q) => {
      const locked = await this.lock(q, jobId);
      const reopen = locked?.status === 'completed' ? opts.reopen : undefined;
      const reopening = reopen !== undefined;
      if (!locked || (locked.status !== 'scraping' && !reopening)) {
        return { inserted: 0, dispatch: [], wake: [] };
      }
      const inserted = await this.insertCandidates(q, locked, candidates);
      if (reopening && inserted === 0) return { inserted: 0, dispatch: [], wake: [] };
      let job = locked;
      if (reopen) {
        const { rows } = await q.query<RawJob>(
          `UPDATE ${this.jobs} SET status = 'scraping', finished_at = NULL, reopened = reopened + 1,
             expires_at = greatest(expires_at, now() + $2 * interval '1 millisecond')
           WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
          [jobId, reopen.retentionMs],
        );
        job = toJob(rows[0]);
      }
      if (opts.blocked?.length) await this.insertBlocked(q, jobId, opts.blocked);
      const seeded = job.seeded || opts.seeded === true;
      await q.query(
        `UPDATE ${this.jobs} SET discovered = discovered + $2, seeded = $3, progressed_at = now(),
           robots_txt = CASE WHEN $4::boolean THEN $5 ELSE robots_txt END
         WHERE id = $1`,
        [jobId, inserted, seeded, opts.robotsTxt !== undefined, opts.robotsTxt ?? null],
      );
      const s = await this.claimAndSettle(q, { ...job, seeded, discovered: job.discovered + inserted });
      return {
        inserted,
        dispatch: s.dispatch,
        finished: s.finished,
        wake: s.wake,
        ...(s.finished || reopening ? { job: s.job } : {}),
        ...(reopening ? { reopened: true } : {}),
      };
    });
  }

  /**
   * Records a page's result, adds the links it led to and claims the next pages, in one
   * transaction. A page that is no longer `dispatched`/`queued` was finished before (redelivery):
   * nothing changes, so counters and credits count once.
   */
  async finishPage(
    jobId: string,
    urlKey: string,
    result: PageResult,
    discovered: readonly PageCandidate[] = [],
    blocked: readonly string[] = [],
  ): Promise<FinishOutcome> {
    const [outcome] = await this.finishPages(jobId, [{ urlKey, result, discovered, blocked }]);
    return outcome;
  }

  /**
   * Finishes several pages of one job in one statement (libs/jobs/sql/page-finish-batch.sql, its own
   * transaction): the same steps as `finishPage` for each page in order, with the job locked, the
   * next pages claimed and the counters updated once. Outcomes are in page order; the batch's
   * claimed pages and its completion (`dispatch`, `finished`, `job`) go with its last applied page.
   */
  async finishPages(jobId: string, pages: readonly PageFinish[]): Promise<FinishOutcome[]> {
    const linkPages: number[] = [];
    const keys: string[] = [];
    const urls: string[] = [];
    const depths: number[] = [];
    const blockedPages: number[] = [];
    const blockedUrls: string[] = [];
    pages.forEach((p, i) => {
      for (const c of p.discovered ?? []) {
        linkPages.push(i + 1);
        keys.push(c.urlKey);
        urls.push(c.url);
        depths.push(c.depth);
      }
      for (const url of [...new Set(p.blocked ?? [])].slice(0, 1000)) {
        blockedPages.push(i + 1);
        blockedUrls.push(url);
      }
    });
    const ok = (r: PageResult): r is Extract<PageResult, { kind: 'done' }> => r.kind === 'done';
    const { rows } = await this.db.query<RawFinish>(
      `SELECT f.o_applied AS applied, f.o_seq AS seq, f.o_dispatch AS dispatch, f.o_wake AS wake,
         f.o_finished AS finished, f.o_team_id AS "teamId", (f.o_job).*
       FROM ${this.finishFn}($1::uuid, $2::text[], $3::boolean[], $4::text[], $5::int[], $6::int[],
         $7::text[], $8::text[], $9::int[], $10::text[], $11::text[], $12::int[], $13::int[], $14::text[],
         $15::int, $16::int) f`,
      [
        jobId,
        pages.map((p) => p.urlKey),
        pages.map((p) => ok(p.result)),
        pages.map((p) => p.result.documentJson ?? null),
        pages.map((p) =>
          p.result.documentJson !== undefined ? Buffer.byteLength(p.result.documentJson) : null,
        ),
        pages.map((p) => p.result.credits),
        // PostgreSQL text cannot hold NUL; an error message quoting a page could carry one.
        pages.map((p) => (ok(p.result) ? null : p.result.error.replaceAll('\u0000', ''))),
        pages.map((p) => (ok(p.result) ? null : (p.result.code ?? null))),
        linkPages,
        keys,
        urls,
        depths,
        blockedPages,
        blockedUrls,
        MAX_CLAIM,
        this.leaseMs,
      ],
    );
    const r = rows[0];
    const outcomes: FinishOutcome[] = pages.map((_, i) =>
      r.applied[i]
        ? { applied: true, dispatch: [], seq: r.seq[i] ?? undefined }
        : { applied: false, dispatch: [] },
    );
    const last = r.applied.lastIndexOf(true);
    if (last < 0) return outcomes;
    if (r.wake.length) this.opts.teamWaker?.wake(r.wake);
    outcomes[last] = {
      ...outcomes[last],
      dispatch: r.dispatch.map((p) => ({ jobId, teamId: r.teamId, ...p })),
      finished: r.finished ? 'completed' : undefined,
      ...(r.finished ? { job: toJob(r) } : {}),
    };
    return outcomes;
  }

  /**
   * Records a page that finished after its job ended (cancel, out of credits, the watchdog): `end()`
   * marked it `cancelled` while it was in flight, so `finishPages` left it alone, yet its work ran
   * and its cost is on record at billing. Its result, its credits (into the job's `credits_used`) and
   * its counter are applied, so the job's status tells what was billed; nothing is claimed and no
   * event is sent (the job has ended). False when the page was not such a page (still pending in a
   * running job, or already finished: a redelivery).
   */
  async finishLate(jobId: string, urlKey: string, result: PageResult): Promise<boolean> {
    return this.db.tx(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status === 'scraping') return false;
      const ok = result.kind === 'done';
      const document = result.documentJson ?? null;
      const { rowCount } = await q.query(
        `UPDATE ${this.pages} SET status = $3, done_seq = $4, document = $5, doc_bytes = $6, credits = $7,
           error = $8, error_code = $9, finished_at = now()
         WHERE job_id = $1 AND url_key = $2 AND status = 'cancelled'`,
        [
          jobId,
          urlKey,
          ok ? 'done' : 'failed',
          ok ? job.succeeded + 1 : null,
          document,
          document === null ? null : Buffer.byteLength(document),
          result.credits,
          ok ? null : result.error.replaceAll('\u0000', ''),
          ok ? null : (result.code ?? null),
        ],
      );
      if (!rowCount) return false;
      await q.query(
        `UPDATE ${this.jobs} SET succeeded = succeeded + $2, failed = failed + $3, credits_used = credits_used + $4
         WHERE id = $1`,
        [jobId, ok ? 1 : 0, ok ? 0 : 1, result.credits],
      );
      return true;
    });
  }

  /**
   * Marks a page whose work is still running as freshly dispatched, so the watchdog does not
   * publish its task again (`stalledDispatches`) while a live worker is on it: a job's own work
   * (an agent run, minutes long) may outlast the redispatch delay.
   */
  async touchDispatched(jobId: string, urlKey: string): Promise<void> {
    await this.db.query(
      `UPDATE ${this.pages} SET dispatched_at = now() WHERE job_id = $1 AND url_key = $2 AND status = 'dispatched'`,
      [jobId, urlKey],
    );
  }

  /** Ends a running job (cancel, out of credits, watchdog); false when it had already ended. */
  async end(jobId: string, status: Exclude<JobStatus, 'scraping'>, error?: string): Promise<boolean> {
    const { ended } = await this.withWake<{ ended: boolean } & Waking>(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status !== 'scraping') return { ended: false, wake: [] };
      await q.query(
        `UPDATE ${this.jobs} SET status = $2, error = COALESCE($3, error), finished_at = now(), inflight = 0
         WHERE id = $1`,
        [jobId, status, error ?? null],
      );
      // Unfinished pages will never run: their tasks are acknowledged without work.
      await q.query(
        `UPDATE ${this.pages} SET status = 'cancelled', finished_at = now()
         WHERE job_id = $1 AND status IN ('queued', 'dispatched')`,
        [jobId],
      );
      return { ended: true, wake: await this.gate.update(q, job, 'ended') };
    });
    return ended;
  }

  /** Claims what the job may dispatch now (after a team wake-up, or the watchdog's poll). */
  async claim(jobId: string): Promise<AddOutcome> {
    return this.withWake<AddOutcome & Waking>(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status !== 'scraping') return { inserted: 0, dispatch: [], wake: [] };
      const s = await this.claimAndSettle(q, job);
      return { inserted: 0, ...s };
    });
  }

  /** Re-evaluates a job's queue and completion (the watchdog's repair step). */
  async reconcile(jobId: string): Promise<AddOutcome> {
    return this.withWake<AddOutcome & Waking>(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status !== 'scraping') return { inserted: 0, dispatch: [], wake: [] };
      const { rows } = await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${this.pages} WHERE job_id = $1 AND status = 'dispatched'`,
        [jobId],
      );
      const inflight = rows[0].n;
      if (inflight !== job.inflight) {
        await q.query(`UPDATE ${this.jobs} SET inflight = $2 WHERE id = $1`, [jobId, inflight]);
      }
      const s = await this.claimAndSettle(q, { ...job, inflight });
      return { inserted: 0, dispatch: s.dispatch, finished: s.finished, wake: s.wake, job: s.job };
    });
  }

  /** Renews the team-slot leases of this schema's running jobs (each watchdog pass). */
  async renewTeamLeases(): Promise<void> {
    await this.gate.renew(this.db, this.jobs);
  }

  /** Running jobs of this schema held back by their team's limit, longest waiting first. */
  async teamWaiting(limit = 100): Promise<string[]> {
    return this.gate.waiting(this.db, this.jobs, limit);
  }

  /** Deletes jobs past their retention, pages and documents with them; returns how many. */
  async purgeExpired(limit = 100): Promise<number> {
    const { rows } = await this.db.query<{ id: string }>(
      `DELETE FROM ${this.jobs} WHERE id IN (
         SELECT id FROM ${this.jobs} WHERE expires_at < now() ORDER BY expires_at LIMIT $1)
       RETURNING id`,
      [limit],
    );
    await this.gate.forget(
      this.db,
      rows.map((r) => r.id),
    );
    return rows.length;
  }

  /** Runs `fn` in a transaction and hands its wake-ups to the waker once it has committed. */
  private async withWake<T extends { wake: WakeTarget[] }>(
    fn: (q: Queryable) => Promise<T>,
  ): Promise<Omit<T, 'wake'>> {
    const { wake, ...rest } = await this.db.tx(fn);
    if (wake.length) this.opts.teamWaker?.wake(wake);
    return rest;
  }

  private async lock(q: Queryable, jobId: string): Promise<JobRow | undefined> {
    const { rows } = await q.query<RawJob>(
      `SELECT ${JOB_COLUMNS} FROM ${this.jobs} WHERE id = $1 FOR UPDATE`,
      [jobId],
    );
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  private async insertCandidates(q: Queryable, job: JobRow, candidates: readonly PageCandidate[]) {
    const room = job.pageLimit - job.discovered;
    if (room <= 0 || candidates.length === 0) return 0;
    // The job row is locked, so nobody else inserts for this job now: filtering out known keys
    // before LIMIT makes the limit exact.
    const { rowCount } = await q.query(
      `INSERT INTO ${this.pages} (job_id, url_key, url, depth)
       SELECT $1, c.k, c.u, c.d
       FROM unnest($2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS c(k, u, d, o)
       WHERE NOT EXISTS (SELECT 1 FROM ${this.pages} p WHERE p.job_id = $1 AND p.url_key = c.k)
       ORDER BY c.o
       LIMIT $5
       ON CONFLICT DO NOTHING`,
      [
        job.id,
        candidates.map((c) => c.urlKey),
        candidates.map((c) => c.url),
        candidates.map((c) => c.depth),
        room,
      ],
    );
    return rowCount ?? 0;
  }

  private async insertBlocked(q: Queryable, jobId: string, urls: readonly string[]) {
    await q.query(
      `INSERT INTO ${this.blocked} (job_id, url) SELECT $1, u FROM unnest($2::text[]) AS u ON CONFLICT DO NOTHING`,
      [jobId, [...new Set(urls)].slice(0, 1000)],
    );
  }

  /**
   * Claims queued pages up to the job's concurrency and what the team limit allows, records the
   * job's team slots, and completes the job when nothing is left.
   */
  private async claimAndSettle(q: Queryable, job: JobRow): Promise<Settled> {
    if (job.status !== 'scraping') return { dispatch: [], job, wake: [] };
    const queued = job.discovered - job.succeeded - job.failed - job.inflight;
    const want = Math.min(job.concurrency - job.inflight, queued, MAX_CLAIM);
    let dispatch: ClaimedPage[] = [];
    let claimWake: WakeTarget[] | undefined;
    if (want > 0) {
      const claimed = await this.gate.claim(q, job, want, this.pages);
      dispatch = claimed.pages.map((p) => ({ jobId: job.id, teamId: job.teamId, ...p }));
      claimWake = claimed.wake;
    }
    const inflight = job.inflight + dispatch.length;
    const done = job.seeded && inflight === 0 && job.succeeded + job.failed >= job.discovered;
    await q.query(
      `UPDATE ${this.jobs} SET inflight = $2,
         status = CASE WHEN $3::boolean THEN 'completed' ELSE status END,
         finished_at = CASE WHEN $3::boolean THEN now() ELSE finished_at END
       WHERE id = $1`,
      [job.id, inflight, done],
    );
    const wake = done
      ? await this.gate.update(q, job, 'ended')
      : (claimWake ?? (await this.gate.update(q, job, inflight)));
    const after: JobRow = { ...job, inflight, ...(done ? { status: 'completed' as const } : {}) };
    return { dispatch, finished: done ? 'completed' : undefined, job: after, wake };
  }
}
