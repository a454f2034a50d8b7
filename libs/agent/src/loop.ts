import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { AgentRunStatus, AgentStep } from '@wds/contracts';
import { addUsage, LlmError, NO_USAGE, type LlmPort, type LlmUsage } from '@wds/llm';
import { ACTION_SCHEMA, FINISH_SCHEMA, parseAction, type AgentAction } from './actions';
import type { AgentBrowser } from './browser';
import { checkNavigation, type NavigationPolicy } from './policy';
import { AGENT_SYSTEM_PROMPT, DATA_SYSTEM_PROMPT, dataInstruction, stepInstruction } from './prompt';
import { describeRef, refsOf, renderObservation } from './snapshot';

const tracer = trace.getTracer('@wds/agent');

export interface AgentRunOptions {
  llm: LlmPort;
  browser: AgentBrowser;
  task: string;
  /** JSON Schema of the final `data` (object root); without it only the answer is produced. */
  schema?: Record<string, unknown>;
  /** Model steps at most (the cap is 25). */
  maxSteps: number;
  /** Epoch ms by which the run ends (status `timeout`). */
  deadline: number;
  policy: NavigationPolicy;
  /** Opened first (the first one); the others are shown to the model. */
  startUrls?: readonly string[];
  /** Tokens one step's answer may take (a step is a small JSON object). */
  stepMaxTokens?: number;
  /** Invalid answers in a row after which the run fails. */
  maxInvalidInARow?: number;
  /**
   * Token budget of the run (prompt + output of all model calls): no model call starts whose
   * estimated size would take the tokens spent past it (status `max_tokens`).
   */
  maxTokens?: number;
  /** Aborts the run (status `cancelled`), the model call in flight included; checked between steps. */
  signal?: AbortSignal;
  /**
   * Called with each step as soon as it is logged (a copy of the entry in `steps`, `at` set), for
   * live progress. It must not block: a callback that throws is ignored, the run goes on.
   */
  onStep?: (step: AgentStep) => void;
  now?: () => number;
}

export interface AgentRunResult {
  status: AgentRunStatus;
  output: string;
  data?: unknown;
  steps: AgentStep[];
  usage: LlmUsage;
  model: string;
  finalUrl: string;
  finalSnapshot: string;
  warnings: string[];
}

/** Snapshot text kept in the result (the interact `result`, the RPC's finalSnapshot). */
export const FINAL_SNAPSHOT_MAX_CHARS = 40_000;
/** Page work of one step at most (an action, a snapshot). */
const STEP_ACTION_MS = 15_000;
/** Time kept back for the data call and the reply once the loop is done. */
const MIN_MODEL_MS = 1000;

type Decision =
  | { kind: 'action'; action: AgentAction }
  | { kind: 'invalid'; reason: string }
  | { kind: 'budget'; needed: number };

/**
 * THE agent loop: observe (AI snapshot), ask the model for one action of the fixed set (JSON-schema
 * constrained through the LLM port), check it in code (refs of the latest snapshot only, keys from
 * the allowed set, navigation under the run's policy), execute it, log it; until the model finishes,
 * `maxSteps` or the deadline. With a schema, one more call turns the answer into `data`.
 */
export class AgentLoop {
  private readonly steps: AgentStep[] = [];
  private readonly notes: string[] = [];
  private readonly warnings: string[] = [];
  private usage: LlmUsage = NO_USAGE;
  private snapshot = '';
  private title = '';
  private model = '';
  /** The snapshot the previous action was taken on (a repeat on an unchanged page is refused). */
  private actedOn = '';
  private readonly now: () => number;

  constructor(private readonly o: AgentRunOptions) {
    this.now = o.now ?? Date.now;
  }

  run(): Promise<AgentRunResult> {
    return tracer.startActiveSpan('agent.run', async (span) => {
      span.setAttribute('wds.agent.max_steps', this.o.maxSteps);
      try {
        const result = await this.loop();
        span.setAttributes({
          'wds.agent.status': result.status,
          'wds.agent.steps': result.steps.length,
          'gen_ai.usage.input_tokens': result.usage.promptTokens,
          'gen_ai.usage.output_tokens': result.usage.completionTokens,
        });
        if (result.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      } finally {
        this.o.browser.release();
        span.end();
      }
    });
  }

  private async loop(): Promise<AgentRunResult> {
    const o = this.o;
    if (o.signal?.aborted) return this.stopped('cancelled');
    const start = o.startUrls?.[0];
    if (start) {
      const decision = checkNavigation(start, 'about:blank', o.policy);
      if (!decision.ok) return this.result('failed', `The start URL is not allowed: ${decision.reason}`);
      try {
        await o.browser.open(decision.url, Math.min(STEP_ACTION_MS * 2, this.left()));
      } catch (err) {
        if (this.left() < MIN_MODEL_MS) return this.stopped('timeout');
        return this.result('failed', `The start page could not be opened: ${firstLine(err)}`);
      }
    }
    let invalidInARow = 0;
    for (let n = 1; n <= o.maxSteps; n++) {
      if (o.signal?.aborted) return this.stopped('cancelled');
      if (this.left() < MIN_MODEL_MS) return this.stopped('timeout');
      await this.observe();
      if (o.signal?.aborted) return this.stopped('cancelled');
      let decision: Decision;
      try {
        decision = await this.decide(n);
      } catch (err) {
        if (o.signal?.aborted) return this.stopped('cancelled');
        if (
          err instanceof LlmError &&
          (err.kind === 'aborted' || err.kind === 'timeout') &&
          this.left() < MIN_MODEL_MS
        )
          return this.stopped('timeout');
        return this.result('failed', `The model could not choose a step: ${firstLine(err)}`);
      }
      if (decision.kind === 'budget') return this.stopped('max_tokens');
      if (decision.kind === 'invalid') {
        this.log(n, { action: 'invalid', outcome: 'refused', detail: decision.reason }, 0);
        if (++invalidInARow >= (o.maxInvalidInARow ?? 3))
          return this.result('failed', 'The model gave no usable action several times in a row');
        continue;
      }
      invalidInARow = 0;
      const action = decision.action;
      if (action.action === 'finish') {
        this.log(n, { action: 'finish', outcome: 'ok' }, 0);
        return this.finish(action.answer);
      }
      await this.act(n, action);
    }
    return this.stopped('max_steps');
  }

  /** Takes the snapshot the next decision sees (a failure is shown to the model as the page). */
  private async observe(): Promise<void> {
    try {
      this.snapshot = await this.o.browser.snapshot(Math.min(STEP_ACTION_MS, this.left()));
      this.title = await this.o.browser.title();
    } catch (err) {
      this.snapshot = `(the page could not be read: ${firstLine(err)})`;
    }
  }

  private async decide(n: number): Promise<Decision> {
    const o = this.o;
    const stepMaxTokens = Math.min(o.stepMaxTokens ?? 384, o.llm.maxOutputTokens);
    // At the last step, and when the model is stuck (its last two actions refused), only `finish`
    // is offered: the run ends with the best answer the model has.
    const answerNow = n === o.maxSteps || this.stuck();
    const schema = answerNow ? FINISH_SCHEMA : ACTION_SCHEMA;
    const instruction = stepInstruction(o.task, n, o.maxSteps, answerNow);
    const reserve =
      stepMaxTokens +
      o.llm.estimateTokens(AGENT_SYSTEM_PROMPT) +
      o.llm.estimateTokens(instruction) +
      o.llm.estimateTokens(JSON.stringify(schema)) +
      64;
    const budget = o.llm.documentBudgetChars('agent', reserve);
    const observation = renderObservation(this.observation(), budget);
    const needed = reserve + o.llm.estimateTokens(observation.text);
    if (!this.affordable(needed)) return { kind: 'budget', needed };
    const r = await o.llm.structured({
      feature: 'agent',
      schema,
      schemaName: 'browser_action',
      system: AGENT_SYSTEM_PROMPT,
      instruction,
      document: { text: observation.text, source: safeSource(o.browser.url()) },
      maxTokens: stepMaxTokens,
      signal: this.callSignal(Math.max(1, this.left() - 200)),
    });
    this.usage = addUsage(this.usage, r.usage);
    this.model = r.model;
    if (!r.valid) return { kind: 'invalid', reason: 'the answer did not match the action schema' };
    const parsed = parseAction(r.value);
    return parsed.ok ? { kind: 'action', action: parsed.action } : { kind: 'invalid', reason: parsed.error };
  }

  /** Checks the action against the latest snapshot and the policy, then executes it. */
  private async act(n: number, action: Exclude<AgentAction, { action: 'finish' }>): Promise<void> {
    const started = this.now();
    const ref = 'ref' in action ? action.ref : undefined;
    const target =
      ref !== undefined
        ? describeRef(this.snapshot, ref)
        : action.action === 'navigate'
          ? action.url.slice(0, 300)
          : action.action === 'press'
            ? action.key
            : action.action === 'scroll'
              ? action.direction
              : action.action === 'wait'
                ? `${action.milliseconds} ms`
                : undefined;
    const value =
      action.action === 'fill' ? action.text : action.action === 'select' ? action.option : undefined;
    const entry = { action: action.action, target, value };
    if (ref !== undefined && !refsOf(this.snapshot).has(ref)) {
      this.log(
        n,
        { ...entry, outcome: 'refused', detail: `no element ${ref} in the latest snapshot` },
        started,
      );
      return;
    }
    let todo = action;
    if (action.action === 'navigate') {
      const decision = checkNavigation(action.url, this.o.browser.url(), this.o.policy);
      if (!decision.ok) {
        this.log(n, { ...entry, outcome: 'refused', detail: decision.reason }, started);
        return;
      }
      todo = { action: 'navigate', url: decision.url };
    }
    // The same action as the last step, on a page it did not change (an extract never changes it):
    // refused, the model is told to use what it has.
    const previous = this.steps.findLast((s) => s.outcome !== 'refused');
    const repeat =
      previous &&
      previous.outcome === 'ok' &&
      previous.action === action.action &&
      previous.target === target &&
      previous.value === value &&
      previous.url === this.o.browser.url() &&
      (action.action === 'extract' || this.snapshot === this.actedOn);
    if (repeat) {
      this.log(
        n,
        {
          ...entry,
          outcome: 'refused',
          detail: 'same as the previous step, which changed nothing: use what you have or finish',
        },
        started,
      );
      return;
    }
    this.actedOn = this.snapshot;
    try {
      const detail = await this.o.browser.perform(
        todo,
        Math.min(STEP_ACTION_MS, Math.max(1000, this.left())),
      );
      if (action.action === 'extract' && detail) this.notes.push(detail);
      this.log(
        n,
        { ...entry, outcome: 'ok', detail: action.action === 'extract' ? detail?.slice(0, 300) : detail },
        started,
      );
    } catch (err) {
      this.log(n, { ...entry, outcome: 'error', detail: firstLine(err) }, started);
    }
  }

  private async finish(answer: string): Promise<AgentRunResult> {
    const o = this.o;
    if (!o.schema) return this.result('completed', answer);
    await this.observe();
    let data: unknown;
    const text = `Final answer of the agent:\n${answer}\n\n${renderObservation(this.observation(), 1e9).text}`;
    const fixed =
      o.llm.estimateTokens(DATA_SYSTEM_PROMPT) +
      o.llm.estimateTokens(dataInstruction(o.task)) +
      o.llm.estimateTokens(JSON.stringify(o.schema)) +
      o.llm.maxOutputTokens;
    // The port cuts the document to what the context holds: that much of it is what is paid for.
    const needed = fixed + o.llm.estimateTokens(text.slice(0, o.llm.documentBudgetChars('agent', fixed)));
    if (!this.affordable(needed)) {
      this.warnings.push(
        'The token budget (maxTokens) was spent before the data matching the schema could be produced',
      );
      return this.result('completed', answer);
    }
    try {
      const r = await o.llm.structured({
        feature: 'agent',
        schema: o.schema,
        schemaName: 'agent_data',
        system: DATA_SYSTEM_PROMPT,
        instruction: dataInstruction(o.task),
        document: { text, source: safeSource(o.browser.url()) },
        signal: this.callSignal(Math.max(1000, this.left())),
      });
      this.usage = addUsage(this.usage, r.usage);
      this.warnings.push(...r.warnings);
      if (r.valid) data = r.value;
    } catch (err) {
      if (o.signal?.aborted) return this.stopped('cancelled');
      this.warnings.push(`The data matching the schema could not be produced: ${firstLine(err)}`);
    }
    return { ...this.result('completed', answer), data };
  }

  private stopped(status: 'timeout' | 'max_steps' | 'max_tokens' | 'cancelled'): AgentRunResult {
    const n = this.steps.length;
    const why = {
      timeout: `The agent ran out of time after ${n} steps without finishing the task.`,
      max_steps: `The agent reached its step limit (${this.o.maxSteps}) without finishing the task.`,
      max_tokens: `The agent spent its token budget (${this.o.maxTokens ?? 0} tokens, ${this.usage.totalTokens} used) after ${n} steps without finishing the task.`,
      cancelled: `The agent run was cancelled after ${n} steps.`,
    }[status];
    const read = this.notes.length ? ` Text it read: ${this.notes.join(' | ').slice(0, 1000)}` : '';
    return this.result(status, why + read);
  }

  private result(status: AgentRunStatus, output: string): AgentRunResult {
    return {
      status,
      output,
      steps: this.steps,
      usage: this.usage,
      model: this.model || this.o.llm.modelFor('agent'),
      finalUrl: this.o.browser.url(),
      finalSnapshot: this.snapshot.slice(0, FINAL_SNAPSHOT_MAX_CHARS),
      warnings: this.warnings,
    };
  }

  private observation() {
    return {
      url: this.o.browser.url(),
      title: this.title,
      snapshot: this.snapshot,
      steps: this.steps,
      notes: this.notes,
      startUrls: this.o.startUrls ?? [],
    };
  }

  private log(
    n: number,
    s: Pick<AgentStep, 'action' | 'target' | 'value' | 'outcome' | 'detail'>,
    started: number,
  ): void {
    const ended = this.now();
    const step: AgentStep = {
      step: n,
      action: s.action,
      ...(s.target !== undefined ? { target: s.target } : {}),
      ...(s.value !== undefined ? { value: s.value } : {}),
      outcome: s.outcome,
      ...(s.detail !== undefined ? { detail: s.detail } : {}),
      url: this.o.browser.url(),
      ms: started ? Math.max(0, Math.round(ended - started)) : 0,
      at: Math.round(ended),
    };
    this.steps.push(step);
    try {
      this.o.onStep?.({ ...step });
    } catch {
      // A progress listener never stops the run.
    }
    // One span per step: the action, its ref and outcome only (no page text: pages may be confidential).
    const span: Span = tracer.startSpan('agent.step', {
      ...(started ? { startTime: started } : {}),
      attributes: {
        'wds.agent.step': n,
        'wds.agent.action': s.action,
        'wds.agent.outcome': s.outcome,
        ...(s.target && /^(f\d+)?e\d+\b/.test(s.target) ? { 'wds.agent.ref': s.target.split(' ')[0] } : {}),
      },
    });
    if (s.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  /** The last two steps were refused (a repeat that changed nothing, an unknown ref, policy). */
  private stuck(): boolean {
    const last = this.steps.slice(-2);
    return last.length === 2 && last.every((s) => s.outcome === 'refused');
  }

  /** Whether a model call of about `tokens` tokens fits in what is left of the token budget. */
  private affordable(tokens: number): boolean {
    const max = this.o.maxTokens;
    return max === undefined || this.usage.totalTokens + tokens <= max;
  }

  /** A model call's signal: its time limit, and the run's cancellation. */
  private callSignal(ms: number): AbortSignal {
    const timeout = AbortSignal.timeout(ms);
    return this.o.signal ? AbortSignal.any([timeout, this.o.signal]) : timeout;
  }

  private left(): number {
    return this.o.deadline - this.now();
  }
}

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split('\n')[0].slice(0, 300);
}

/** The page URL as the port's `source` attribute (cut; it is escaped by the port). */
function safeSource(url: string): string {
  return url.slice(0, 500);
}

/** Runs one agent task (see AgentLoop). */
export function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
  return new AgentLoop(options).run();
}
