import type { AgentStep, AgentTraceEvent, ExtractJobReply } from '@wds/contracts';
import { stableUuid, type JobRow } from '@wds/jobs';
import type { AgentRunLog } from './agent-log';
import type { AgentRecord } from './extract-options';

/** The snapshotId of a job's answer (GET /v2/agent/{id}/snapshots/answer). */
export const ANSWER_SNAPSHOT_ID = 'answer';

type TraceJob = Pick<JobRow, 'id' | 'createdAt' | 'progressedAt' | 'options'>;
type Outcome = Extract<AgentTraceEvent, { type: 'run.finished' }>['outcome'];
type TraceError = NonNullable<Extract<AgentTraceEvent, { type: 'run.finished' }>['error']>;
type Agent = AgentTraceEvent['agent'];
/** An event before its common fields (id, sequence, version) are set. */
type Draft = DistributiveOmit<AgentTraceEvent, 'schemaVersion' | 'eventId' | 'producerSequence' | 'runId'> & {
  key: string;
};
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * An agent job's trace (GET /v2/agent/{id}/trace) from what the job recorded: the run (the job),
 * each run of its browser agent (a task run again after a lost worker or replica is a second one)
 * with every step as a tool call (the action is the tool, its target and value the parameters,
 * its outcome, detail and URL the result), the answer as an artifact, and how the job ended.
 * While the job runs the trace ends with the last step reported; events keep their ids and order
 * as more arrive. Jobs whose steps were not logged as they ran (zero data retention) show the
 * steps of their final record, without timings.
 */
export function agentTrace(
  job: TraceJob,
  state: ExtractJobReply,
  record: AgentRecord | undefined,
  runs: readonly AgentRunLog[],
): AgentTraceEvent[] {
  const orchestrator: Agent = { id: job.id, role: 'orchestrator', name: 'agent job' };
  const browser = (runId: string): Agent => ({
    id: runId,
    role: 'browser',
    name: 'browser agent',
    parentId: job.id,
  });
  const ended = state.status !== 'processing';
  const lastStepAt = Math.max(0, ...runs.flatMap((r) => r.steps.map((s) => s.at ?? 0)));
  const endedAt = new Date(Math.max(job.progressedAt.getTime(), lastStepAt));
  const drafts: Draft[] = [
    { key: 'run.started', type: 'run.started', occurredAt: iso(job.createdAt), agent: orchestrator },
  ];
  const finish = finishOf(state);

  runs.forEach((run, i) => {
    const agent = browser(run.runId);
    if (i > 0) {
      drafts.push({
        key: `progress:${run.runId}`,
        type: 'progress.reported',
        occurredAt: iso(run.startedAt),
        agent: orchestrator,
        phase: 'working',
        message:
          'The agent started again: the previous run did not finish (its worker or browser was lost, or the browser pool was busy)',
      });
    }
    drafts.push({
      key: `agent.started:${run.runId}`,
      type: 'agent.started',
      occurredAt: iso(run.startedAt),
      agent,
    });
    for (const step of run.steps) drafts.push(...stepEvents(run.runId, step, agent));
    const next = runs[i + 1];
    if (next) {
      drafts.push({
        key: `agent.finished:${run.runId}`,
        type: 'agent.finished',
        occurredAt: iso(next.startedAt),
        agent,
        outcome: 'failed',
        durationMs: Math.max(0, next.startedAt.getTime() - run.startedAt.getTime()),
        error: {
          code: 'internal',
          source: 'system',
          retryable: true,
          message: 'This run did not finish; the agent was started again',
        },
      });
    } else if (ended) {
      drafts.push({
        key: `agent.finished:${run.runId}`,
        type: 'agent.finished',
        occurredAt: iso(endedAt),
        agent,
        outcome: finish.outcome === 'credit_limit_reached' ? 'failed' : finish.outcome,
        durationMs: record?.browserMs ?? Math.max(0, endedAt.getTime() - run.startedAt.getTime()),
        error: finish.error,
      });
    }
  });

  // No live log (zero data retention, or a job older than it): the final record's steps.
  if (runs.length === 0 && record) {
    const agent = browser(job.id);
    record.steps.forEach((s, i) => {
      const id = `${job.id}:${i + 1}`;
      drafts.push(
        {
          key: `call:${id}`,
          type: 'tool_call.started',
          occurredAt: iso(endedAt),
          agent,
          toolCallId: id,
          toolName: s.action,
          parameters: s.target !== undefined ? { target: s.target } : {},
        },
        {
          key: `result:${id}`,
          type: 'tool_call.finished',
          occurredAt: iso(endedAt),
          agent,
          toolCallId: id,
          toolName: s.action,
          result: s.outcome !== undefined ? { outcome: s.outcome } : {},
        },
      );
    });
  }

  if (ended) {
    if (state.status === 'completed' && record) {
      drafts.push({
        key: 'artifact:answer',
        type: 'artifact.updated',
        occurredAt: iso(endedAt),
        agent: orchestrator,
        artifact: {
          kind: record.data !== undefined ? 'json' : 'text',
          artifactId: ANSWER_SNAPSHOT_ID,
          snapshotId: ANSWER_SNAPSHOT_ID,
          change: 'init',
        },
      });
    }
    if (finish.outcome === 'cancelled') {
      drafts.push({
        key: 'run.cancel_requested',
        type: 'run.cancel_requested',
        occurredAt: iso(endedAt),
        agent: orchestrator,
        reason: 'user',
      });
    }
    drafts.push({
      key: 'run.finished',
      type: 'run.finished',
      occurredAt: iso(endedAt),
      agent: orchestrator,
      outcome: finish.outcome,
      error: finish.error,
    });
  }

  return drafts.map(({ key, ...event }, producerSequence) => ({
    ...event,
    schemaVersion: 1,
    eventId: stableUuid(job.id, 'trace', key),
    runId: job.id,
    producerSequence,
  })) as AgentTraceEvent[];
}

/** The two events of one step. */
function stepEvents(runId: string, step: AgentStep, agent: Agent): Draft[] {
  const id = `${runId}:${step.step}`;
  const at = step.at ?? 0;
  return [
    {
      key: `call:${id}`,
      type: 'tool_call.started',
      occurredAt: iso(new Date(Math.max(0, at - step.ms))),
      agent,
      toolCallId: id,
      toolName: step.action,
      parameters: {
        ...(step.target !== undefined ? { target: step.target } : {}),
        ...(step.value !== undefined ? { value: step.value } : {}),
      },
    },
    {
      key: `result:${id}`,
      type: 'tool_call.finished',
      occurredAt: iso(new Date(at)),
      agent,
      toolCallId: id,
      toolName: step.action,
      result: {
        outcome: step.outcome,
        ...(step.detail !== undefined ? { detail: step.detail } : {}),
        url: step.url,
        ms: step.ms,
      },
    },
  ];
}

/** How the job ended, in the trace's terms. */
function finishOf(state: ExtractJobReply): { outcome: Outcome; error: TraceError | null } {
  if (state.status === 'completed') return { outcome: 'succeeded', error: null };
  const message = state.error ?? 'The agent job failed';
  if (state.stopReason === 'cancelled' || state.status === 'cancelled')
    return { outcome: 'cancelled', error: { code: 'cancelled', source: 'agent', retryable: false, message } };
  if (state.stopReason === 'max_tokens')
    return {
      outcome: 'credit_limit_reached',
      error: { code: 'credit_limit_reached', source: 'billing', retryable: false, message },
    };
  return { outcome: 'failed', error: { code: 'internal', source: 'agent', retryable: false, message } };
}

function iso(d: Date): string {
  return d.toISOString();
}
