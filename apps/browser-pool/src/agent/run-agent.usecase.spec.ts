import { randomUUID } from 'node:crypto';
import type { AgentRunResult } from '@wds/agent';
import { AgentRunRequest, ServiceError, type AgentStep } from '@wds/contracts';
import { NO_USAGE } from '@wds/llm';
import type { Logger } from '@wds/observability';
import type { BrowserPool } from '../pool/browser-pool';
import type { JobContext } from '../render/job-context';
import type { AgentTask, BrowserAgent } from './browser-agent';
import { RunAgentUseCase, type StepReporter } from './run-agent.usecase';

const SECRET = 'page text that must never be logged';

function steps(n: number): AgentStep[] {
  return Array.from({ length: n }, (_, i) => ({
    step: i + 1,
    action: i === n - 1 ? 'finish' : 'extract',
    outcome: 'ok' as const,
    detail: SECRET,
    url: 'https://shop.example/',
    ms: 3,
    at: 1_700_000_000_000 + i,
  }));
}

/** An agent that logs the given steps (a macrotask apart, like real steps) and finishes. */
function fakeAgent(log: AgentStep[]) {
  const agent = {
    model: 'test-model',
    requireLlm: () => undefined,
    finishedAt: 0,
    run: async (_page: unknown, t: AgentTask): Promise<AgentRunResult> => {
      for (const s of log) {
        await new Promise((r) => setTimeout(r, 1));
        t.onStep?.({ ...s });
      }
      agent.finishedAt = Date.now();
      return {
        status: 'completed',
        output: 'done',
        steps: log,
        usage: NO_USAGE,
        model: 'test-model',
        finalUrl: 'https://shop.example/',
        finalSnapshot: '',
        warnings: [],
      };
    },
  };
  return agent;
}

function fakeLogger() {
  const lines: { level: string; obj: unknown; msg: string }[] = [];
  const logger = {
    lines,
    info: (obj: unknown, msg: string) => lines.push({ level: 'info', obj, msg }),
    warn: (obj: unknown, msg: string) => lines.push({ level: 'warn', obj, msg }),
    debug: (obj: unknown, msg: string) => lines.push({ level: 'debug', obj, msg }),
    error: (obj: unknown, msg: string) => lines.push({ level: 'error', obj, msg }),
  };
  return logger;
}

const pool = {
  run: <T>(_spec: unknown, job: (c: JobContext) => Promise<T>) =>
    job({ guard: { bind: () => undefined }, page: {} } as unknown as JobContext),
} as unknown as BrowserPool<JobContext>;

function useCase(log: AgentStep[], report: StepReporter) {
  const agent = fakeAgent(log);
  const logger = fakeLogger();
  const uc = new RunAgentUseCase(
    pool,
    agent as unknown as BrowserAgent,
    { options: {} },
    1,
    logger as unknown as Logger,
    () => () => undefined,
    report,
  );
  return { uc, agent, logger };
}

const request = (stepsTo?: string) =>
  AgentRunRequest.parse({
    teamId: 'team-a',
    jobId: 'job-1',
    prompt: 'Find it',
    timeoutMs: 60_000,
    ...(stepsTo ? { stepsTo } : {}),
  });

describe('RunAgentUseCase step reports (stepsTo)', () => {
  it('reports every step in order, one report at a time, without holding up the loop, before the reply', async () => {
    const log = steps(4);
    const runId = randomUUID();
    const reported: { runId: string; step: AgentStep }[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    // Slow reports: the loop is done long before they are.
    const report: StepReporter = async (id, step) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, 60));
      reported.push({ runId: id, step });
      inFlight--;
    };
    const { uc, agent } = useCase(log, report);
    const reply = await uc.execute(request(runId));
    const repliedAt = Date.now();
    expect(reply.steps).toEqual(log);
    expect(reported).toEqual(log.map((step) => ({ runId, step })));
    expect(maxInFlight).toBe(1);
    // The loop did not wait for them: it finished while most reports were still on their way.
    expect(repliedAt - agent.finishedAt).toBeGreaterThanOrEqual(100);
  });

  it('never fails the run for a report: a rejected report is logged (code and jobId, no page text) and the next one still goes', async () => {
    const log = steps(3);
    const calls: number[] = [];
    const report: StepReporter = async (_id, step) => {
      calls.push(step.step);
      if (step.step !== 2)
        throw new ServiceError('SERVICE_UNAVAILABLE', `service for x is unavailable ${SECRET}`);
      throw new Error(SECRET);
    };
    const { uc, logger } = useCase(log, report);
    const reply = await uc.execute(request(randomUUID()));
    expect(reply.status).toBe('completed');
    expect(reply.steps).toEqual(log);
    expect(calls).toEqual([1, 2, 3]);
    const failures = logger.lines.filter((l) => /step report failed/.test(l.msg));
    expect(failures.map((l) => l.level)).toEqual(['warn', 'debug', 'debug']);
    expect(failures[0].obj).toMatchObject({ jobId: 'job-1', step: 1, code: 'SERVICE_UNAVAILABLE' });
    expect(failures[1].obj).toMatchObject({ jobId: 'job-1', step: 2, code: 'error' });
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
  });

  it('a report that never settles holds the reply about 2 s at most', async () => {
    const log = steps(2);
    const report = jest.fn<Promise<void>, Parameters<StepReporter>>(() => new Promise<void>(() => undefined));
    const { uc, agent } = useCase(log, report);
    const reply = await uc.execute(request(randomUUID()));
    const held = Date.now() - agent.finishedAt;
    expect(reply.steps).toEqual(log);
    expect(held).toBeGreaterThanOrEqual(1900);
    expect(held).toBeLessThan(3500);
    // The second report waits for the first: still in order.
    expect(report).toHaveBeenCalledTimes(1);
  });

  it('reports nothing without stepsTo', async () => {
    const report = jest.fn<Promise<void>, Parameters<StepReporter>>(async () => undefined);
    const { uc } = useCase(steps(2), report);
    const reply = await uc.execute(request());
    expect(reply.steps).toHaveLength(2);
    expect(report).not.toHaveBeenCalled();
  });
});
