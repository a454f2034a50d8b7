import type { AgentStep } from '@wds/contracts';
import type { LlmPort, LlmStructuredResult, StructuredRequest } from '@wds/llm';
import type { AgentBrowser } from './browser';
import { runAgent, type AgentRunOptions } from './loop';

const PAGE = '- heading "Shop" [level=1]\n- button "Next" [ref=e1]\n- link "Help" [ref=e2]';

/** A model that answers the scripted step answers in order (the last one again when they run out). */
function scriptedLlm(answers: unknown[]): LlmPort & { calls: number } {
  const llm = {
    calls: 0,
    enabled: true,
    maxOutputTokens: 512,
    modelFor: () => 'test-model',
    documentBudgetChars: () => 20_000,
    estimateTokens: (text: string) => Math.ceil(text.length / 4),
    complete: () => Promise.reject(new Error('not used')),
    structured: (_req: StructuredRequest): Promise<LlmStructuredResult> => {
      const value = answers[Math.min(llm.calls, answers.length - 1)];
      llm.calls++;
      return Promise.resolve({
        value,
        valid: true,
        raw: JSON.stringify(value),
        repaired: false,
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, estimated: false },
        model: 'test-model',
        finishReason: 'stop',
        truncated: false,
        warnings: [],
      });
    },
  };
  return llm;
}

/** A page that never changes (clicks succeed), at a fixed URL. */
function fakeBrowser(): AgentBrowser & { performed: string[] } {
  const b = {
    performed: [] as string[],
    url: () => 'https://shop.example/',
    title: () => Promise.resolve('Shop'),
    snapshot: () => Promise.resolve(PAGE),
    open: () => Promise.resolve(),
    perform: (action: { action: string }) => {
      b.performed.push(action.action);
      return Promise.resolve(undefined);
    },
    release: () => undefined,
  };
  return b;
}

/** A clock that moves 7 ms on every read, from 1_700_000_000_000. */
function steppingClock(): () => number {
  let t = 1_700_000_000_000;
  return () => (t += 7);
}

const ANSWERS = [
  { seen: 'a Next button', step: { action: 'click', ref: 'e1' } },
  { seen: '', step: { action: 'click', ref: 'e99' } },
  { seen: '', step: { action: 'dance' } },
  { seen: 'done', step: { action: 'finish', answer: 'The answer' } },
];

function options(onStep: AgentRunOptions['onStep'], llm = scriptedLlm(ANSWERS)): AgentRunOptions {
  const now = steppingClock();
  return {
    llm,
    browser: fakeBrowser(),
    task: 'Find the answer',
    maxSteps: 10,
    deadline: now() + 600_000,
    policy: {},
    startUrls: ['https://shop.example/'],
    onStep,
    now,
  };
}

describe('AgentLoop onStep', () => {
  it('gets every step as soon as it is logged, in order, each with the time it ended', async () => {
    const seen: AgentStep[] = [];
    const o = options((step) => seen.push(step));
    // The log at each call: a step is reported when it is logged, before the next one starts.
    const logged: number[] = [];
    const onStep = o.onStep!;
    o.onStep = (step) => {
      logged.push(seen.length);
      onStep(step);
    };
    const result = await runAgent(o);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('The answer');
    expect(result.steps.map((s) => [s.step, s.action, s.outcome])).toEqual([
      [1, 'click', 'ok'],
      [2, 'click', 'refused'],
      [3, 'invalid', 'refused'],
      [4, 'finish', 'ok'],
    ]);
    expect(seen).toEqual(result.steps);
    expect(logged).toEqual([0, 1, 2, 3]);
    for (const s of seen) {
      expect(Number.isInteger(s.at)).toBe(true);
      expect(s.at).toBeGreaterThan(1_700_000_000_000);
    }
    const at = seen.map((s) => s.at!);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(new Set(at).size).toBe(at.length);
  });

  it('sets `at` on the steps of a run without onStep too', async () => {
    const result = await runAgent(options(undefined));
    expect(result.steps).toHaveLength(4);
    for (const s of result.steps) expect(s.at).toEqual(expect.any(Number));
  });

  it('goes on when onStep throws, and a listener cannot change the step log', async () => {
    let calls = 0;
    const result = await runAgent(
      options((step) => {
        calls++;
        step.action = 'tampered';
        throw new Error('listener failed');
      }),
    );
    expect(result.status).toBe('completed');
    expect(result.output).toBe('The answer');
    expect(calls).toBe(4);
    expect(result.steps.map((s) => s.action)).toEqual(['click', 'click', 'invalid', 'finish']);
  });
});
