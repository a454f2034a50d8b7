import {
  ErrorCode,
  ServiceError,
  type AgentListReply,
  type AgentListRequest,
  type AgentSnapshotReply,
  type AgentSnapshotRequest,
  type AgentThreadReply,
  type AgentThreadRequest,
  type AgentTraceReply,
  type ExtractJobReply,
  type JobRef,
} from '@wds/contracts';
import type { JobRow, JobStore } from '@wds/jobs';
import { listPage, type AgentLog, type AgentRunLog } from './agent-log';
import { threadRunStatus } from './agent-thread';
import { agentTrace, ANSWER_SNAPSHOT_ID } from './agent-trace';
import { agentReply, extractReply, type PageFailure } from './extract-reply';
import {
  agentOptionsOf,
  extractOptionsOf,
  statusStep,
  type AgentRecord,
  type ExtractPageRecord,
} from './extract-options';
import { AGENT_KIND, AGENT_TASK_KEY, EXTRACT_KIND } from './job-kind.hooks';

/** Stored extract pages are small (their answer only); a job has at most 100. */
const READ_MAX_BYTES = 64 * 1024 * 1024;

/** The state of an extract or agent job: NOT_FOUND (unknown, expired), FORBIDDEN (another team's). */
export class ReadExtractUseCase {
  constructor(
    private readonly store: JobStore,
    private readonly log: AgentLog,
  ) {}

  async execute(ref: JobRef): Promise<ExtractJobReply> {
    const job = await this.owned(ref, [EXTRACT_KIND, AGENT_KIND]);
    if (job.kind === AGENT_KIND) return this.agentStateOf(job);
    const records = await this.records(job);
    return extractReply(job, extractOptionsOf(job), records as ExtractPageRecord[], await this.failures(job));
  }

  /** GET /v2/agent/{id}/trace: the job's run, steps and end as events. */
  async trace(ref: JobRef): Promise<AgentTraceReply> {
    const job = await this.owned(ref, [AGENT_KIND]);
    const [record, runs] = await Promise.all([this.agentRecord(job), this.log.read(job.id)]);
    const state = await this.agentState(job, record, runs);
    return {
      events: agentTrace(job, state, record, runs) as unknown as Record<string, unknown>[],
      creditsUsed: state.creditsUsed,
      running: state.status === 'processing',
    };
  }

  /** GET /v2/agent/{id}/snapshots/{snapshotId}: the answer of a job that completed with one. */
  async snapshot(req: AgentSnapshotRequest): Promise<AgentSnapshotReply> {
    const job = await this.owned(req, [AGENT_KIND]);
    const record = await this.agentRecord(job);
    const state = await this.agentState(job, record, []);
    if (req.snapshotId !== ANSWER_SNAPSHOT_ID || state.status !== 'completed' || !record) {
      throw new ServiceError(ErrorCode.NOT_FOUND, 'Agent snapshot not found');
    }
    return {
      snapshot: record.data !== undefined ? JSON.stringify(record.data) : record.output,
    };
  }

  /** GET /v2/agent: the team's agent jobs, newest first. */
  async list(req: AgentListRequest): Promise<AgentListReply> {
    const rows = await this.log.list(req.teamId, AGENT_KIND, req.before, req.limit);
    const { shown, nextBefore } = listPage(rows, req.limit);
    return {
      agents: shown.map((r) => {
        const o = agentOptionsOf(r);
        const failed = r.status === 'failed' || r.status === 'cancelled' || r.taskStatus === 'failed';
        return {
          id: r.id,
          createdAt: r.createdAt.toISOString(),
          status: r.status === 'scraping' ? 'processing' : failed ? 'failed' : 'completed',
          prompt: o.prompt,
          urls: o.urls,
          ...(o.schema ? { schema: o.schema } : {}),
          ...(o.model ? { model: o.model } : {}),
          ...(o.effort ? { effort: o.effort } : {}),
          ...(o.origin ? { origin: o.origin } : {}),
          ...(o.integration ? { integration: o.integration } : {}),
        };
      }),
      ...(nextBefore !== undefined ? { nextBefore } : {}),
    };
  }

  /** GET /v2/agent/threads/{threadId}: the thread's runs, oldest turn first. */
  async thread(req: AgentThreadRequest): Promise<AgentThreadReply> {
    const rows = await this.log.threadRuns(req.teamId, req.threadId);
    if (rows.length === 0) throw new ServiceError(ErrorCode.NOT_FOUND, 'Agent thread not found');
    const runs = await Promise.all(
      rows.map(async (row) => {
        const o = agentOptionsOf(row);
        const state = await this.agentStateOf(row);
        return {
          id: row.id,
          turn: o.threadTurn ?? 1,
          mode: o.mode ?? 'extract',
          prompt: o.prompt,
          ...(o.urls.length > 0 ? { urls: o.urls } : {}),
          ...(o.schema ? { schema: o.schema } : {}),
          ...(o.effort ? { effort: o.effort } : {}),
          status: threadRunStatus(state),
          createdAt: row.createdAt.toISOString(),
          finishedAt: state.status === 'processing' ? null : row.progressedAt.toISOString(),
          creditsUsed: state.creditsUsed,
          message: state.message ?? null,
          ...(req.includeData && state.status === 'completed' && state.data !== undefined
            ? { data: state.data }
            : {}),
        };
      }),
    );
    const times = rows.flatMap((r) => [r.createdAt.getTime(), r.progressedAt.getTime()]);
    return {
      id: req.threadId,
      createdAt: rows[0].createdAt.toISOString(),
      updatedAt: new Date(Math.max(...times)).toISOString(),
      status: runs.some((r) => r.status === 'processing') ? 'running' : 'idle',
      runs,
    };
  }

  /** The state of an agent job already read (and owned by the team asking). */
  async agentStateOf(job: JobRow): Promise<ExtractJobReply> {
    const runs = job.status === 'scraping' ? await this.log.read(job.id) : [];
    return this.agentState(job, await this.agentRecord(job), runs);
  }

  /**
   * An agent job's state: its status (the current run's steps while it runs), its thread and mode;
   * a chat-mode run's answer is its `message` (no `data`).
   */
  private async agentState(
    job: JobRow,
    record: AgentRecord | undefined,
    runs: readonly AgentRunLog[],
  ): Promise<ExtractJobReply> {
    const live = runs.at(-1)?.steps.map(statusStep) ?? [];
    const { data, ...reply } = agentReply(job, record, (await this.failures(job))[0], live);
    const o = agentOptionsOf(job);
    const chat = o.mode === 'chat';
    return {
      ...reply,
      ...(data !== undefined && !chat ? { data } : {}),
      ...(chat && reply.status === 'completed' && record ? { message: record.output } : {}),
      ...(o.threadId ? { threadId: o.threadId, threadTurn: o.threadTurn ?? 1 } : {}),
      mode: o.mode ?? 'extract',
    };
  }

  private async failures(job: JobRow): Promise<PageFailure[]> {
    return (await this.store.errors(job.id)).pages.map((p) => ({ url: p.url, error: p.error }));
  }

  /** The job if it is one of `kinds` and the team's (a batch id reads as unknown here). */
  async owned(ref: JobRef, kinds: readonly string[]): Promise<JobRow> {
    const job = await this.store.get(ref.jobId);
    if (!job || !kinds.includes(job.kind) || job.expiresAt.getTime() < Date.now()) {
      throw new ServiceError(
        ErrorCode.NOT_FOUND,
        kinds.length === 1 && kinds[0] === AGENT_KIND ? 'Agent job not found' : 'Extract job not found',
      );
    }
    if (job.teamId !== ref.teamId)
      throw new ServiceError(ErrorCode.FORBIDDEN, 'This job belongs to another team');
    return job;
  }

  /** The agent run's record: kept whether the run answered or not (then on the failed task). */
  private async agentRecord(job: JobRow): Promise<AgentRecord | undefined> {
    const page = await this.store.finishedPage(job.id, AGENT_TASK_KEY);
    if (!page?.document) return undefined;
    try {
      return JSON.parse(page.document) as AgentRecord;
    } catch {
      return undefined;
    }
  }

  private async records(job: JobRow): Promise<unknown[]> {
    const items = await this.store.readDocuments(job.id, {
      skip: 0,
      limit: 1000,
      maxBytes: READ_MAX_BYTES,
      inlineMax: READ_MAX_BYTES,
    });
    return items.flatMap((i) => {
      if (i.json === undefined) return [];
      try {
        return [JSON.parse(i.json) as unknown];
      } catch {
        return [];
      }
    });
  }
}
