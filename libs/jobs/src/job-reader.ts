import type { Queryable } from '@wds/database';
import { JOB_COLUMNS, toJob, type RawJob } from './job-rows';
import type { ClaimedPage, JobRow } from './job.types';

export interface TxRunner {
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  query: Queryable['query'];
}

/** The read side of JobStore: jobs, documents, errors, and what the watchdog looks for. */
export class JobReader {
  protected readonly jobs: string;
  protected readonly pages: string;
  protected readonly blocked: string;

  constructor(
    protected readonly db: TxRunner,
    schema: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    this.jobs = `${schema}.jobs`;
    this.pages = `${schema}.job_pages`;
    this.blocked = `${schema}.job_blocked`;
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
   * A page that is no longer pending, with what its event carries (the stored document, or the
   * error); undefined while it is queued or dispatched (or unknown).
   */
  async finishedPage(
    jobId: string,
    urlKey: string,
  ): Promise<
    { status: string; document: string | null; docBytes: number | null; error: string | null } | undefined
  > {
    const { rows } = await this.db.query<{
      status: string;
      document: string | null;
      docBytes: number | null;
      error: string | null;
    }>(
      `SELECT status, document, doc_bytes AS "docBytes", error FROM ${this.pages} WHERE job_id = $1 AND url_key = $2`,
      [jobId, urlKey],
    );
    const row = rows[0];
    return row && row.status !== 'dispatched' && row.status !== 'queued' ? row : undefined;
  }

  /**
   * Pages first dispatched between `minMs` and `maxMs` ago and still waiting: their task may have
   * been lost between the claim's commit and its publish (a crash, a NATS outage). Publishing them
   * again with their first msgId is harmless inside the stream's duplicate window: JetStream drops
   * it when the first publish did arrive.
   */
  async unfinishedFirstDispatches(minMs: number, maxMs: number, limit = 1000): Promise<ClaimedPage[]> {
    const { rows } = await this.db.query<ClaimedPage>(
      `SELECT p.job_id AS "jobId", j.team_id AS "teamId", p.url_key AS "urlKey", p.url, p.depth
       FROM ${this.pages} p JOIN ${this.jobs} j ON j.id = p.job_id
       WHERE p.status = 'dispatched' AND p.dispatches = 1 AND j.status = 'scraping'
         AND p.dispatched_at < now() - $1 * interval '1 millisecond'
         AND p.dispatched_at > now() - $2 * interval '1 millisecond'
       ORDER BY p.dispatched_at LIMIT $3`,
      [minMs, maxMs, limit],
    );
    return rows;
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

  /**
   * The team's pages of this kind: in flight (its jobs' team slots, live leases only), queued in
   * running jobs, and when a page last succeeded (jobs created in the last 24 hours).
   */
  async queueStatus(
    teamId: string,
    kind: string,
  ): Promise<{ active: number; waiting: number; lastSuccessAt: string | null }> {
    const { rows } = await this.db.query<{ active: string; waiting: string; last: Date | null }>(
      `SELECT
         (SELECT COALESCE(sum(inflight), 0) FROM jobs.team_jobs
          WHERE team_id = $1 AND kind = $2 AND lease_until > now()) AS active,
         (SELECT count(*) FROM ${this.pages} p JOIN ${this.jobs} j ON j.id = p.job_id
          WHERE j.team_id = $1 AND j.kind = $2 AND j.status = 'scraping' AND p.status = 'queued') AS waiting,
         (SELECT max(progressed_at) FROM ${this.jobs}
          WHERE team_id = $1 AND kind = $2 AND succeeded > 0 AND created_at > now() - interval '1 day') AS last`,
      [teamId, kind],
    );
    const r = rows[0];
    return {
      active: Number(r.active),
      waiting: Number(r.waiting),
      lastSuccessAt: r.last?.toISOString() ?? null,
    };
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
}
