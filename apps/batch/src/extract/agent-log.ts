import { randomUUID } from 'node:crypto';
import { ErrorCode, ServiceError, type AgentStep } from '@wds/contracts';
import type { Queryable } from '@wds/database';
import { JOB_COLUMNS, toJob, type JobRow, type RawJob } from '@wds/jobs';
import { AGENT_TASK_KEY } from './job-kind.hooks';

/** One run of a job's browser agent, with the steps recorded for it, in step order. */
export interface AgentRunLog {
  runId: string;
  startedAt: Date;
  steps: AgentStep[];
}

/** A row of the team's agent jobs (GET /v2/agent), with its task's state. */
export interface AgentJobRow {
  id: string;
  createdAt: Date;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  options: Record<string, unknown>;
  /** The state of the job's one task (`done`, `failed`, ...), undefined before it exists. */
  taskStatus: string | undefined;
}

/**
 * The live log of agent jobs (tables `agent_runs`, `agent_steps` of migration 0009): the runs of a
 * job's agent and their steps as the browser pool reports them, so a job's status and trace show
 * its steps while it runs. Also the team's agent jobs, newest first.
 */
export class AgentLog {
  private readonly runs: string;
  private readonly steps: string;
  private readonly jobs: string;
  private readonly pages: string;
  private readonly threads: string;

  constructor(
    private readonly db: Queryable,
    schema: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    this.runs = `${schema}.agent_runs`;
    this.steps = `${schema}.agent_steps`;
    this.jobs = `${schema}.jobs`;
    this.pages = `${schema}.job_pages`;
    this.threads = `${schema}.agent_threads`;
  }

  /** Records the start of a run (false when the job is gone). */
  async startRun(jobId: string, runId: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO ${this.runs} (job_id, run_id)
       SELECT id, $2 FROM ${this.jobs} WHERE id = $1
       ON CONFLICT DO NOTHING RETURNING run_id`,
      [jobId, runId],
    );
    return rows.length > 0;
  }

  /** Records a step of a run; false when it was recorded before (or the run is unknown). */
  async record(jobId: string, runId: string, step: AgentStep): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO ${this.steps} (job_id, run_id, step, body)
       SELECT job_id, run_id, $3, $4::jsonb FROM ${this.runs} WHERE job_id = $1 AND run_id = $2
       ON CONFLICT DO NOTHING RETURNING step`,
      [jobId, runId, step.step, JSON.stringify(step)],
    );
    return rows.length > 0;
  }

  /** The job's runs, oldest first, each with its steps. */
  async read(jobId: string): Promise<AgentRunLog[]> {
    const { rows } = await this.db.query<{ runId: string; startedAt: Date; steps: AgentStep[] | null }>(
      `SELECT r.run_id AS "runId", r.started_at AS "startedAt",
              (SELECT jsonb_agg(s.body ORDER BY s.step) FROM ${this.steps} s
                WHERE s.job_id = r.job_id AND s.run_id = r.run_id) AS steps
         FROM ${this.runs} r WHERE r.job_id = $1 ORDER BY r.started_at, r.run_id`,
      [jobId],
    );
    return rows.map((r) => ({ runId: r.runId, startedAt: r.startedAt, steps: r.steps ?? [] }));
  }

  /**
   * A new thread for the team's job `jobId` (turn 1). Threads whose last run is older than
   * `retentionMs` (their runs have expired with their jobs) are deleted on the way, a few at a time.
   */
  async openThread(
    teamId: string,
    jobId: string,
    retentionMs: number,
  ): Promise<{ threadId: string; turn: number }> {
    await this.db.query(
      `DELETE FROM ${this.threads} WHERE id IN (
         SELECT id FROM ${this.threads} WHERE updated_at < now() - $1::double precision * interval '1 millisecond'
         ORDER BY updated_at LIMIT 100)`,
      [retentionMs],
    );
    const threadId = randomUUID();
    await this.db.query(
      `INSERT INTO ${this.threads} (id, team_id, turns, running_job) VALUES ($1, $2, 1, $3)`,
      [threadId, teamId, jobId],
    );
    return { threadId, turn: 1 };
  }

  /**
   * The next turn of the team's thread, taken by job `jobId` in one statement (two runs asking at
   * once cannot both take it): NOT_FOUND for a thread that is not the team's (or gone), CONFLICT
   * while its latest run is still in progress.
   */
  async continueThread(teamId: string, threadId: string, jobId: string): Promise<number> {
    const { rows } = await this.db.query<{ turns: number }>(
      `UPDATE ${this.threads} t SET turns = t.turns + 1, running_job = $3, updated_at = now()
        WHERE t.id = $1 AND t.team_id = $2
          AND NOT EXISTS (SELECT 1 FROM ${this.jobs} j WHERE j.id = t.running_job AND j.status = 'scraping')
        RETURNING t.turns`,
      [threadId, teamId, jobId],
    );
    if (rows[0]) return rows[0].turns;
    const known = await this.db.query<{ teamId: string }>(
      `SELECT team_id AS "teamId" FROM ${this.threads} WHERE id = $1`,
      [threadId],
    );
    if (known.rows[0]?.teamId !== teamId)
      throw new ServiceError(ErrorCode.NOT_FOUND, 'Agent thread not found');
    throw new ServiceError(
      ErrorCode.CONFLICT,
      'A run of this thread is still in progress: continue the thread once it has ended (or cancel it)',
    );
  }

  /** The team's unexpired agent jobs of a thread, oldest turn first. */
  async threadRuns(teamId: string, threadId: string): Promise<JobRow[]> {
    const { rows } = await this.db.query<RawJob>(
      `SELECT ${JOB_COLUMNS}
         FROM ${this.jobs}
        WHERE kind = 'agent' AND options ->> 'threadId' = $1 AND team_id = $2 AND expires_at > now()
        ORDER BY (options ->> 'threadTurn')::int, created_at`,
      [threadId, teamId],
    );
    return rows.map(toJob);
  }

  /**
   * The team's unexpired jobs of `kind` created before `before` (epoch ms), newest first, at most
   * `limit` + 1 (the extra row tells whether there is a next page), each with its task's state.
   */
  async list(
    teamId: string,
    kind: string,
    before: number | undefined,
    limit: number,
  ): Promise<AgentJobRow[]> {
    const { rows } = await this.db.query<AgentJobRow>(
      `SELECT j.id, j.created_at AS "createdAt", j.status, j.options, p.status AS "taskStatus"
         FROM ${this.jobs} j
         LEFT JOIN ${this.pages} p ON p.job_id = j.id AND p.url_key = $5
        WHERE j.team_id = $1 AND j.kind = $2 AND j.expires_at > now()
          AND ($3::double precision IS NULL OR j.created_at < to_timestamp($3::double precision / 1000))
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT $4`,
      [teamId, kind, before ?? null, limit + 1, AGENT_TASK_KEY],
    );
    return rows.map((r) => ({ ...r, taskStatus: r.taskStatus ?? undefined }));
  }
}

/**
 * One page of a list read with `limit` + 1 rows (newest first). `before` is in milliseconds and
 * created_at finer, so the next page starts before the millisecond *after* the first row left out,
 * and the rows of that millisecond move to the next page with it (no row shown twice or skipped);
 * only when a whole page shares that millisecond does the page keep them and the next skip the rest.
 */
export function listPage<R extends { createdAt: Date }>(
  rows: readonly R[],
  limit: number,
): { shown: R[]; nextBefore?: number } {
  const first = rows[limit];
  if (!first) return { shown: rows.slice(0, limit) };
  const ms = first.createdAt.getTime();
  const kept = rows.slice(0, limit).filter((r) => r.createdAt.getTime() > ms);
  return kept.length > 0
    ? { shown: kept, nextBefore: ms + 1 }
    : { shown: rows.slice(0, limit), nextBefore: ms };
}
