import type { Queryable } from '@wds/database';
import type { JobStatus, JobRow, NewJob, PageCandidate, ClaimedPage, PageResult } from './job.types';

/** Pages handed back per claim at most, whatever the job's concurrency. */
const MAX_CLAIM = 500;

interface TxRunner {
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  query: Queryable['query'];
}

export interface FinishOutcome {
  /** False when the page was already finished (a redelivery): nothing changed. */
  applied: boolean;
  /** Pages to publish now (claimed under the job's concurrency). */
  dispatch: ClaimedPage[];
  /** Set when this transaction ended the job. */
  finished?: 'completed';
  /** Completion sequence of a stored document. */
  seq?: number;
}

export interface AddOutcome {
  inserted: number;
  dispatch: ClaimedPage[];
  finished?: 'completed';
}

/**
 * The frontier, the visited set and the counters of page jobs, in PostgreSQL (tables described in
 * libs/jobs/README.md, in the owning service's schema). Every change to a job's pages happens in
 * a transaction that first locks the job row, so the page limit is exact, a URL is visited once
 * per job (primary key (job_id, url_key)), `inflight` never exceeds the job's concurrency, and the
 * job completes exactly when its last page finishes.
 */
export class JobStore {
  private readonly jobs: string;
  private readonly pages: string;
  private readonly blocked: string;

  constructor(
    private readonly db: TxRunner,
    schema: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    this.jobs = `${schema}.jobs`;
    this.pages = `${schema}.job_pages`;
    this.blocked = `${schema}.job_blocked`;
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
  }

  async get(jobId: string): Promise<JobRow | undefined> {
    const { rows } = await this.db.query<RawJob>(`SELECT ${JOB_COLUMNS} FROM ${this.jobs} WHERE id = $1`, [
      jobId,
    ]);
    return rows[0] ? toJob(rows[0]) : undefined;
  }

  /** Whether the page still waits for its result (queued or dispatched). */
  async isPending(jobId: string, urlKey: string): Promise<boolean> {
    const { rows } = await this.db.query<{ status: string }>(
      `SELECT status FROM ${this.pages} WHERE job_id = $1 AND url_key = $2`,
      [jobId, urlKey],
    );
    return rows[0]?.status === 'dispatched' || rows[0]?.status === 'queued';
  }

  /**
   * Adds pages to the job (the start pages, or links found on a page) within its limit, marks it
   * seeded when asked, and claims pages to dispatch. Only URLs whose key is new are inserted.
   */
  async addPages(
    jobId: string,
    candidates: readonly PageCandidate[],
    opts: { seeded?: boolean; blocked?: readonly string[]; robotsTxt?: string | null } = {},
  ): Promise<AddOutcome> {
    return this.db.tx(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status !== 'scraping') return { inserted: 0, dispatch: [] };
      const inserted = await this.insertCandidates(q, job, candidates);
      if (opts.blocked?.length) await this.insertBlocked(q, jobId, opts.blocked);
      const seeded = job.seeded || opts.seeded === true;
      await q.query(
        `UPDATE ${this.jobs} SET discovered = discovered + $2, seeded = $3, progressed_at = now(),
           robots_txt = CASE WHEN $4::boolean THEN $5 ELSE robots_txt END
         WHERE id = $1`,
        [jobId, inserted, seeded, opts.robotsTxt !== undefined, opts.robotsTxt ?? null],
      );
      const state = { ...job, seeded, discovered: job.discovered + inserted };
      const { dispatch, finished } = await this.claimAndSettle(q, state);
      return { inserted, dispatch, finished };
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
    return this.db.tx(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job) return { applied: false, dispatch: [] };
      const ok = result.kind === 'done';
      const seq = ok ? job.succeeded + 1 : null;
      const upd = await q.query(
        `UPDATE ${this.pages} SET status = $3, done_seq = $4, document = $5, doc_bytes = $6, credits = $7,
           error = $8, error_code = $9, finished_at = now()
         WHERE job_id = $1 AND url_key = $2 AND status IN ('dispatched', 'queued')
         RETURNING status`,
        [
          jobId,
          urlKey,
          ok ? 'done' : 'failed',
          seq,
          ok ? result.documentJson : null,
          ok ? Buffer.byteLength(result.documentJson) : null,
          result.credits,
          ok ? null : result.error,
          ok ? null : (result.code ?? null),
        ],
      );
      if (upd.rowCount === 0) return { applied: false, dispatch: [] };
      let inserted = 0;
      if (job.status === 'scraping') {
        inserted = await this.insertCandidates(q, job, discovered);
        if (blocked.length) await this.insertBlocked(q, jobId, blocked);
      }
      await q.query(
        `UPDATE ${this.jobs} SET discovered = discovered + $2, succeeded = succeeded + $3, failed = failed + $4,
           inflight = GREATEST(inflight - 1, 0), credits_used = credits_used + $5, progressed_at = now()
         WHERE id = $1`,
        [jobId, inserted, ok ? 1 : 0, ok ? 0 : 1, result.credits],
      );
      const state: JobRow = {
        ...job,
        discovered: job.discovered + inserted,
        succeeded: job.succeeded + (ok ? 1 : 0),
        failed: job.failed + (ok ? 0 : 1),
        inflight: Math.max(job.inflight - 1, 0),
      };
      const { dispatch, finished } = await this.claimAndSettle(q, state);
      return { applied: true, dispatch, finished, seq: seq ?? undefined };
    });
  }

  /** Ends a running job (cancel, out of credits, watchdog); false when it had already ended. */
  async end(jobId: string, status: Exclude<JobStatus, 'scraping'>, error?: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status !== 'scraping') return false;
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
      return true;
    });
  }

  /** Pages of a job in completion order after `skip`, within `maxBytes` of inline JSON. */
  async readDocuments(
    jobId: string,
    opts: { skip: number; limit: number; maxBytes: number; inlineMax: number },
  ): Promise<{ seq: number; bytes: number; json?: string }[]> {
    // Running total of inline bytes decides where the reply ends; the first row always fits.
    const { rows } = await this.db.query<{ seq: number; bytes: number; json: string | null }>(
      `SELECT seq, bytes, json FROM (
         SELECT done_seq AS seq, doc_bytes AS bytes,
                CASE WHEN doc_bytes <= $5 THEN document END AS json,
                sum(CASE WHEN doc_bytes <= $5 THEN doc_bytes ELSE 0 END) OVER (ORDER BY done_seq) AS running
         FROM ${this.pages}
         WHERE job_id = $1 AND done_seq > $2 AND done_seq <= $2 + $3
       ) t
       WHERE running <= $4 OR seq = $2 + 1
       ORDER BY seq`,
      [jobId, opts.skip, opts.limit, opts.maxBytes, opts.inlineMax],
    );
    return rows.map((r) => ({ seq: r.seq, bytes: r.bytes, ...(r.json !== null ? { json: r.json } : {}) }));
  }

  /** A byte range of one stored document (UTF-8). */
  async readDocumentBytes(
    jobId: string,
    seq: number,
    offset: number,
    length: number,
  ): Promise<Buffer | null> {
    const { rows } = await this.db.query<{ part: Buffer | null }>(
      `SELECT substring(convert_to(document, 'UTF8') FROM $3 FOR $4) AS part
       FROM ${this.pages} WHERE job_id = $1 AND done_seq = $2`,
      [jobId, seq, offset + 1, length],
    );
    return rows[0]?.part ?? null;
  }

  async errors(
    jobId: string,
    limit = 1000,
  ): Promise<{
    pages: { id: string; url: string; error: string; code: string | null; at: Date }[];
    blocked: string[];
  }> {
    const pages = await this.db.query<{
      id: string;
      url: string;
      error: string;
      code: string | null;
      at: Date;
    }>(
      `SELECT id::text AS id, url, error, error_code AS code, finished_at AS at FROM ${this.pages}
       WHERE job_id = $1 AND status = 'failed' ORDER BY id LIMIT $2`,
      [jobId, limit],
    );
    const blocked = await this.db.query<{ url: string }>(
      `SELECT url FROM ${this.blocked} WHERE job_id = $1 ORDER BY url LIMIT $2`,
      [jobId, limit],
    );
    return { pages: pages.rows, blocked: blocked.rows.map((r) => r.url) };
  }

  async active(teamId: string, kind: string): Promise<JobRow[]> {
    const { rows } = await this.db.query<RawJob>(
      `SELECT ${JOB_COLUMNS} FROM ${this.jobs}
       WHERE team_id = $1 AND kind = $2 AND status = 'scraping' ORDER BY created_at LIMIT 1000`,
      [teamId, kind],
    );
    return rows.map(toJob);
  }

  /** Dispatched pages whose task may be lost (published long ago, never finished). */
  async stalledDispatches(olderThanMs: number, limit = 500): Promise<ClaimedPage[]> {
    const { rows } = await this.db.query<ClaimedPage & { teamId: string }>(
      `UPDATE ${this.pages} p SET dispatched_at = now(), dispatches = p.dispatches + 1
       FROM ${this.jobs} j
       WHERE j.id = p.job_id AND j.status = 'scraping' AND (p.job_id, p.url_key) IN (
         SELECT job_id, url_key FROM ${this.pages}
         WHERE status = 'dispatched' AND dispatched_at < now() - $1 * interval '1 millisecond'
         ORDER BY dispatched_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING p.job_id AS "jobId", j.team_id AS "teamId", p.url_key AS "urlKey", p.url, p.depth`,
      [olderThanMs, limit],
    );
    return rows;
  }

  /** Running jobs without progress for `idleMs`, oldest first. */
  async idleJobs(idleMs: number, limit = 100): Promise<JobRow[]> {
    const { rows } = await this.db.query<RawJob>(
      `SELECT ${JOB_COLUMNS} FROM ${this.jobs}
       WHERE status = 'scraping' AND progressed_at < now() - $1 * interval '1 millisecond'
       ORDER BY progressed_at LIMIT $2`,
      [idleMs, limit],
    );
    return rows.map(toJob);
  }

  /** Re-evaluates a job's queue and completion (the watchdog's repair step). */
  async reconcile(jobId: string): Promise<AddOutcome> {
    return this.db.tx(async (q) => {
      const job = await this.lock(q, jobId);
      if (!job || job.status !== 'scraping') return { inserted: 0, dispatch: [] };
      const { rows } = await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${this.pages} WHERE job_id = $1 AND status = 'dispatched'`,
        [jobId],
      );
      const inflight = rows[0].n;
      if (inflight !== job.inflight) {
        await q.query(`UPDATE ${this.jobs} SET inflight = $2 WHERE id = $1`, [jobId, inflight]);
      }
      const { dispatch, finished } = await this.claimAndSettle(q, { ...job, inflight });
      return { inserted: 0, dispatch, finished };
    });
  }

  /** Deletes jobs past their retention, pages and documents with them; returns how many. */
  async purgeExpired(limit = 100): Promise<number> {
    const { rowCount } = await this.db.query(
      `DELETE FROM ${this.jobs} WHERE id IN (
         SELECT id FROM ${this.jobs} WHERE expires_at < now() ORDER BY expires_at LIMIT $1)`,
      [limit],
    );
    return rowCount ?? 0;
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

  /** Claims queued pages up to the concurrency and completes the job when nothing is left. */
  private async claimAndSettle(
    q: Queryable,
    job: JobRow,
  ): Promise<{ dispatch: ClaimedPage[]; finished?: 'completed' }> {
    if (job.status !== 'scraping') return { dispatch: [] };
    const free = Math.min(job.concurrency - job.inflight, MAX_CLAIM);
    let dispatch: ClaimedPage[] = [];
    if (free > 0) {
      const { rows } = await q.query<{ urlKey: string; url: string; depth: number }>(
        `UPDATE ${this.pages} SET status = 'dispatched', dispatched_at = now(), dispatches = dispatches + 1
         WHERE job_id = $1 AND url_key IN (
           SELECT url_key FROM ${this.pages} WHERE job_id = $1 AND status = 'queued' ORDER BY depth, id LIMIT $2)
         RETURNING url_key AS "urlKey", url, depth`,
        [job.id, free],
      );
      dispatch = rows.map((r) => ({ jobId: job.id, teamId: job.teamId, ...r }));
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
    return { dispatch, finished: done ? 'completed' : undefined };
  }
}

const JOB_COLUMNS = `id, team_id, kind, status, url, options, page_limit, concurrency, delay_ms, webhook,
  zero_data_retention, discovered, succeeded, failed, inflight, credits_used, seeded, robots_txt, error,
  created_at, progressed_at, expires_at`;

interface RawJob {
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
}

function toJob(r: RawJob): JobRow {
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
  };
}
