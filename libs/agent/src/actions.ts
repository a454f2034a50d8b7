/**
 * THE action set of the agent: the model answers one JSON object per step, constrained by
 * ACTION_SCHEMA (one option per action, so it works as a grammar on every OpenAI-compatible server,
 * the embedded llama.cpp one included). `parseAction` re-checks every answer in code: the schema is
 * what the model is asked for, never what is trusted.
 */

/** Keys the agent may press (anything else is refused). */
export const ALLOWED_KEYS = [
  'Enter',
  'Tab',
  'Escape',
  'Backspace',
  'Space',
  'ArrowDown',
  'ArrowUp',
  'ArrowLeft',
  'ArrowRight',
  'PageDown',
  'PageUp',
  'Home',
  'End',
] as const;
export type AllowedKey = (typeof ALLOWED_KEYS)[number];

/** Longest text the agent may type, option label, answer. */
export const MAX_TEXT = 2000;
export const MAX_ANSWER = 8000;
export const MAX_WAIT_MS = 10_000;
export const MAX_URL = 2048;

/** Element refs as Playwright's AI snapshot prints them: `e12`, or `f1e3` inside a frame. */
export const REF_PATTERN = '^(f[0-9]{1,4})?e[0-9]{1,6}$';
const REF_RE = new RegExp(REF_PATTERN);

export type AgentAction =
  | { action: 'click'; ref: string }
  | { action: 'fill'; ref: string; text: string; submit: boolean }
  | { action: 'select'; ref: string; option: string }
  | { action: 'press'; key: AllowedKey }
  | { action: 'scroll'; direction: 'up' | 'down' }
  | { action: 'navigate'; url: string }
  | { action: 'wait'; milliseconds: number }
  | { action: 'extract'; ref?: string }
  | { action: 'finish'; answer: string };

export type ActionName = AgentAction['action'];
export const ACTION_NAMES: readonly ActionName[] = [
  'click',
  'fill',
  'select',
  'press',
  'scroll',
  'navigate',
  'wait',
  'extract',
  'finish',
];

const ref = { type: 'string', pattern: REF_PATTERN, maxLength: 12 };
const option = (name: ActionName, properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties: { action: { const: name }, ...properties },
  required: ['action', ...required],
  additionalProperties: false,
});

const FINISH_OPTION = option('finish', { answer: { type: 'string', maxLength: MAX_ANSWER } }, ['answer']);

/** Longest `seen` note of a step. */
export const MAX_SEEN = 80;

/**
 * JSON Schema of one step's answer (the model's constrained output). `seen` comes first (the model
 * writes it before choosing the action): the words of the page that answer the task, or "". It makes
 * the model look for the answer before acting; the loop does not act on it (finishing on a `seen`
 * note the model repeated gave a wrong answer in the benchmark: docs/benchmarks.md).
 */
export const ACTION_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    seen: { type: 'string', maxLength: MAX_SEEN },
    step: {
      anyOf: [
        option('click', { ref }, ['ref']),
        option('fill', { ref, text: { type: 'string', maxLength: MAX_TEXT }, submit: { type: 'boolean' } }, [
          'ref',
          'text',
          'submit',
        ]),
        option('select', { ref, option: { type: 'string', maxLength: 500 } }, ['ref', 'option']),
        option('press', { key: { enum: [...ALLOWED_KEYS] } }, ['key']),
        option('scroll', { direction: { enum: ['up', 'down'] } }, ['direction']),
        option('navigate', { url: { type: 'string', maxLength: MAX_URL } }, ['url']),
        option('wait', { milliseconds: { type: 'integer', minimum: 100, maximum: MAX_WAIT_MS } }, [
          'milliseconds',
        ]),
        option('extract', { ref }, []),
        FINISH_OPTION,
      ],
    },
  },
  required: ['seen', 'step'],
  additionalProperties: false,
};

/**
 * The same answer with `finish` as the only action: asked at the last step, and when the model is
 * stuck (its last two actions refused: repeats that changed nothing, unknown refs, policy), so a
 * run ends with the best answer the model has rather than none.
 */
export const FINISH_SCHEMA: Record<string, unknown> = {
  ...ACTION_SCHEMA,
  properties: { seen: { type: 'string', maxLength: MAX_SEEN }, step: FINISH_OPTION },
};

export type ParsedAction = { ok: true; action: AgentAction } | { ok: false; error: string };

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Turns the model's answer into an action of the fixed set, or says why it cannot: an unknown
 * action, a malformed ref, a key outside the allowed set, an out-of-range wait are all refused here,
 * whatever the schema let through.
 */
export function parseAction(answer: unknown): ParsedAction {
  const root = answer && typeof answer === 'object' ? (answer as Record<string, unknown>) : undefined;
  const step = root?.step && typeof root.step === 'object' ? (root.step as Record<string, unknown>) : root;
  if (!step) return { ok: false, error: 'the answer is not an object' };
  const name = str(step.action);
  const needRef = (): string | undefined => {
    const r = str(step.ref);
    return r && REF_RE.test(r) ? r : undefined;
  };
  switch (name) {
    case 'click': {
      const r = needRef();
      return r
        ? { ok: true, action: { action: 'click', ref: r } }
        : { ok: false, error: 'click needs a ref like e12' };
    }
    case 'fill': {
      const r = needRef();
      const text = str(step.text);
      if (!r) return { ok: false, error: 'fill needs a ref like e12' };
      if (text === undefined || text.length > MAX_TEXT)
        return { ok: false, error: 'fill needs a text (≤ 2000 characters)' };
      return { ok: true, action: { action: 'fill', ref: r, text, submit: step.submit === true } };
    }
    case 'select': {
      const r = needRef();
      const opt = str(step.option);
      if (!r || !opt) return { ok: false, error: 'select needs a ref and an option' };
      return { ok: true, action: { action: 'select', ref: r, option: opt.slice(0, 500) } };
    }
    case 'press': {
      const key = str(step.key);
      return key && (ALLOWED_KEYS as readonly string[]).includes(key)
        ? { ok: true, action: { action: 'press', key: key as AllowedKey } }
        : { ok: false, error: `press accepts only ${ALLOWED_KEYS.join(', ')}` };
    }
    case 'scroll': {
      const d = str(step.direction);
      return d === 'up' || d === 'down'
        ? { ok: true, action: { action: 'scroll', direction: d } }
        : { ok: false, error: 'scroll direction is up or down' };
    }
    case 'navigate': {
      const url = str(step.url);
      return url && url.length <= MAX_URL
        ? { ok: true, action: { action: 'navigate', url } }
        : { ok: false, error: 'navigate needs a url' };
    }
    case 'wait': {
      const ms = step.milliseconds;
      return typeof ms === 'number' && Number.isFinite(ms)
        ? {
            ok: true,
            action: { action: 'wait', milliseconds: Math.min(MAX_WAIT_MS, Math.max(100, Math.round(ms))) },
          }
        : { ok: false, error: 'wait needs milliseconds' };
    }
    case 'extract': {
      if (step.ref === undefined) return { ok: true, action: { action: 'extract' } };
      const r = needRef();
      return r
        ? { ok: true, action: { action: 'extract', ref: r } }
        : { ok: false, error: 'extract ref must look like e12' };
    }
    case 'finish': {
      const a = str(step.answer);
      return a !== undefined
        ? { ok: true, action: { action: 'finish', answer: a.slice(0, MAX_ANSWER) } }
        : { ok: false, error: 'finish needs an answer' };
    }
    default:
      return { ok: false, error: `unknown action ${JSON.stringify(name ?? null).slice(0, 40)}` };
  }
}
