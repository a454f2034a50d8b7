import { AgentTraceEvent, type AgentStep, type ExtractJobReply } from '@wds/contracts';
import { listPage, type AgentRunLog } from './agent-log';
import { redactStep } from './agent-jobs';
import { agentTrace } from './agent-trace';
import type { AgentRecord } from './extract-options';

const job = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  createdAt: new Date('2026-11-28T10:00:00.000Z'),
  progressedAt: new Date('2026-11-28T10:01:00.000Z'),
  options: {},
};
const t = (s: number) => Date.parse('2026-11-28T10:00:00.000Z') + s * 1000;
const step = (n: number, over: Partial<AgentStep> = {}): AgentStep => ({
  step: n,
  action: n === 1 ? 'click' : 'finish',
  target: n === 1 ? 'e3 link "Parts"' : undefined,
  outcome: 'ok',
  url: 'http://127.0.0.1:9/parts',
  ms: 500,
  at: t(10 * n),
  ...over,
});
const run = (runId: string, startS: number, steps: AgentStep[]): AgentRunLog => ({
  runId,
  startedAt: new Date(t(startS)),
  steps,
});
const state = (over: Partial<ExtractJobReply>): ExtractJobReply => ({
  kind: 'agent',
  status: 'completed',
  expiresAt: '2026-11-29T10:00:00.000Z',
  tokensUsed: 900,
  creditsUsed: 61,
  ...over,
});
const record: AgentRecord = {
  output: 'A-1',
  steps: [{ action: 'click', target: 'e3', outcome: 'ok' }],
  tokensUsed: 900,
  browserMs: 19_000,
};
const types = (events: { type: string }[]) => events.map((e) => e.type);

describe('agentTrace', () => {
  it('tells a completed job: run, agent, each step as a tool call, the answer, the end; valid events', () => {
    const runs = [run('r1', 1, [step(1), step(2)])];
    const events = agentTrace(job, state({ data: 'A-1' }), record, runs);
    expect(types(events)).toEqual([
      'run.started',
      'agent.started',
      'tool_call.started',
      'tool_call.finished',
      'tool_call.started',
      'tool_call.finished',
      'agent.finished',
      'artifact.updated',
      'run.finished',
    ]);
    for (const e of events) expect(AgentTraceEvent.safeParse(e).success).toBe(true);
    expect(events.map((e) => e.producerSequence)).toEqual(events.map((_, i) => i));
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    expect(events[2]).toMatchObject({
      toolCallId: 'r1:1',
      toolName: 'click',
      parameters: { target: 'e3 link "Parts"' },
      occurredAt: new Date(t(10) - 500).toISOString(),
      agent: { id: 'r1', role: 'browser', parentId: job.id },
    });
    expect(events[3]).toMatchObject({
      result: { outcome: 'ok', url: 'http://127.0.0.1:9/parts', ms: 500 },
      occurredAt: new Date(t(10)).toISOString(),
    });
    expect(events[6]).toMatchObject({ outcome: 'succeeded', durationMs: 19_000, error: null });
    expect(events[7]).toMatchObject({ artifact: { kind: 'text', snapshotId: 'answer', change: 'init' } });
    expect(events.at(-1)).toMatchObject({ outcome: 'succeeded', error: null, runId: job.id });
  });

  it('while the job runs: what happened so far, the same events (ids, order) as later', () => {
    const runningState = state({ status: 'processing' });
    const early = agentTrace(job, runningState, undefined, [run('r1', 1, [step(1)])]);
    expect(types(early)).toEqual(['run.started', 'agent.started', 'tool_call.started', 'tool_call.finished']);
    const later = agentTrace(job, state({ data: 'A-1' }), record, [run('r1', 1, [step(1), step(2)])]);
    expect(later.slice(0, early.length)).toEqual(early);
  });

  it('names how a job ended without an answer', () => {
    const runs = [run('r1', 1, [step(1)])];
    const cancelled = agentTrace(
      job,
      state({ status: 'failed', stopReason: 'cancelled', error: 'The agent job was cancelled' }),
      record,
      runs,
    );
    expect(types(cancelled).slice(-3)).toEqual(['agent.finished', 'run.cancel_requested', 'run.finished']);
    expect(cancelled.at(-1)).toMatchObject({
      outcome: 'cancelled',
      error: { code: 'cancelled', source: 'agent', retryable: false, message: 'The agent job was cancelled' },
    });
    const spent = agentTrace(
      job,
      state({ status: 'failed', stopReason: 'max_tokens', error: 'budget' }),
      record,
      runs,
    );
    expect(spent.at(-1)).toMatchObject({
      outcome: 'credit_limit_reached',
      error: { code: 'credit_limit_reached', source: 'billing' },
    });
    expect(spent.find((e) => e.type === 'agent.finished')).toMatchObject({ outcome: 'failed' });
    const failed = agentTrace(
      job,
      state({ status: 'failed', stopReason: 'max_steps', error: 'no answer' }),
      record,
      runs,
    );
    expect(failed.at(-1)).toMatchObject({
      outcome: 'failed',
      error: { code: 'internal', message: 'no answer' },
    });
    expect(types(failed)).not.toContain('artifact.updated');
  });

  it('shows a run started again after a lost one, and the record steps when nothing was logged live', () => {
    const twice = agentTrace(job, state({ data: { part: 'A-1' } }), { ...record, data: { part: 'A-1' } }, [
      run('r1', 1, [step(1)]),
      run('r2', 30, [step(1, { at: t(40) }), step(2, { at: t(50) })]),
    ]);
    expect(types(twice)).toEqual([
      'run.started',
      'agent.started',
      'tool_call.started',
      'tool_call.finished',
      'agent.finished',
      'progress.reported',
      'agent.started',
      'tool_call.started',
      'tool_call.finished',
      'tool_call.started',
      'tool_call.finished',
      'agent.finished',
      'artifact.updated',
      'run.finished',
    ]);
    expect(twice[4]).toMatchObject({ agent: { id: 'r1' }, outcome: 'failed', durationMs: 29_000 });
    expect(twice[12]).toMatchObject({ artifact: { kind: 'json' } });
    const unlogged = agentTrace(job, state({ data: 'A-1' }), record, []);
    expect(types(unlogged)).toEqual([
      'run.started',
      'tool_call.started',
      'tool_call.finished',
      'artifact.updated',
      'run.finished',
    ]);
    expect(unlogged[2]).toMatchObject({ toolName: 'click', result: { outcome: 'ok' } });
  });
});

describe('listPage', () => {
  const at = (ms: number) => ({ createdAt: new Date(ms) });

  it('shows everything when nothing is left out', () => {
    expect(listPage([at(5), at(4)], 2)).toEqual({ shown: [at(5), at(4)] });
  });

  it('starts the next page after the millisecond of the first row left out, moving that millisecond with it', () => {
    expect(listPage([at(9), at(8), at(7)], 2)).toEqual({ shown: [at(9), at(8)], nextBefore: 8 });
    // The second and third rows share a millisecond: both go to the next page.
    expect(listPage([at(9), at(7), at(7)], 2)).toEqual({ shown: [at(9)], nextBefore: 8 });
    // A whole page in one millisecond: shown, and the next page starts before it.
    expect(listPage([at(7), at(7), at(7)], 2)).toEqual({ shown: [at(7), at(7)], nextBefore: 7 });
  });
});

describe('redactStep', () => {
  const fill = (target: string, value = 'hunter2') =>
    redactStep({ step: 1, action: 'fill', target, value, outcome: 'ok', url: 'http://a.test/', ms: 1 });

  it('keeps a value typed into a credential field out of what is recorded and sent', () => {
    for (const target of [
      'e4 textbox "Password"',
      'e5 textbox "Passcode"',
      'e6 textbox "One-time code"',
      'e7 textbox "OTP"',
      'e8 textbox "PIN"',
      'e9 textbox "Card number"',
      'e10 textbox "CVC"',
      'e11 textbox "API token"',
      'e12 textbox "Client secret"',
    ])
      expect(fill(target).value).toBe('[redacted]');
  });

  it('keeps other values, and steps without one, as they are', () => {
    expect(fill('e3 textbox "Name"', 'Ada').value).toBe('Ada');
    expect(fill('e3 textbox "Passport country"', 'UK').value).toBe('UK');
    expect(fill('e3 textbox "Spinner"', 'x').value).toBe('x');
    const click = {
      step: 2,
      action: 'click',
      target: 'e2 button "Show password"',
      outcome: 'ok' as const,
      url: '',
      ms: 1,
    };
    expect(redactStep(click)).toBe(click);
  });
});
