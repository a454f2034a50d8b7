import { compileSchema, parseAndValidate } from '@wds/llm';
import { ACTION_SCHEMA, ALLOWED_KEYS, FINISH_SCHEMA, parseAction } from './actions';

describe('action schema', () => {
  const validate = compileSchema(ACTION_SCHEMA);
  const valid = (v: unknown) => parseAndValidate(JSON.stringify(v), validate).valid;

  it('accepts one option per action and nothing else', () => {
    expect(valid({ seen: '', step: { action: 'click', ref: 'e12' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'click', ref: 'f1e3' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'fill', ref: 'e2', text: 'hi', submit: true } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'select', ref: 'e2', option: 'Blue' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'press', key: 'Enter' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'scroll', direction: 'down' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'navigate', url: 'https://a.example/' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'wait', milliseconds: 500 } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'extract' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'finish', answer: '42' } })).toBe(true);
    // Outside the set, or malformed.
    expect(valid({ seen: '', step: { action: 'eval', code: 'alert(1)' } })).toBe(false);
    expect(valid({ seen: '', step: { action: 'click', ref: '#submit' } })).toBe(false);
    expect(valid({ seen: '', step: { action: 'click', ref: 'e1', extra: 1 } })).toBe(false);
    expect(valid({ seen: '', step: { action: 'press', key: 'Control+W' } })).toBe(false);
    expect(valid({ seen: '', step: { action: 'wait', milliseconds: 600000 } })).toBe(false);
    expect(valid({ action: 'finish', answer: 'x' })).toBe(false);
    // The `seen` note is asked for first, on every step, and is short.
    expect(valid({ step: { action: 'extract' } })).toBe(false);
    expect(valid({ seen: 'x'.repeat(201), step: { action: 'extract' } })).toBe(false);
    expect(Object.keys(ACTION_SCHEMA.properties as object)[0]).toBe('seen');
  });
});

describe('finish-only schema (last step, stuck model)', () => {
  it('accepts finish and nothing else', () => {
    const validate = compileSchema(FINISH_SCHEMA);
    const valid = (v: unknown) => parseAndValidate(JSON.stringify(v), validate).valid;
    expect(valid({ seen: 'BW-1', step: { action: 'finish', answer: 'BW-1' } })).toBe(true);
    expect(valid({ seen: '', step: { action: 'click', ref: 'e1' } })).toBe(false);
    expect(valid({ seen: '', step: { action: 'extract' } })).toBe(false);
  });
});

describe('parseAction (the check in code)', () => {
  it('returns typed actions', () => {
    expect(parseAction({ step: { action: 'fill', ref: 'e4', text: 'Ada' } })).toEqual({
      ok: true,
      action: { action: 'fill', ref: 'e4', text: 'Ada', submit: false },
    });
    expect(parseAction({ step: { action: 'extract' } })).toEqual({ ok: true, action: { action: 'extract' } });
    expect(parseAction({ step: { action: 'wait', milliseconds: 99999 } })).toEqual({
      ok: true,
      action: { action: 'wait', milliseconds: 10000 },
    });
  });

  it('refuses what the schema might let through', () => {
    expect(parseAction({ step: { action: 'click', ref: 'button' } }).ok).toBe(false);
    expect(parseAction({ step: { action: 'click', ref: 'e1; rm -rf' } }).ok).toBe(false);
    expect(parseAction({ step: { action: 'press', key: 'F12' } }).ok).toBe(false);
    expect(parseAction({ step: { action: 'open_tab', url: 'https://x' } }).ok).toBe(false);
    expect(parseAction({ step: { action: 'fill', ref: 'e1', text: 'x'.repeat(2001) } }).ok).toBe(false);
    expect(parseAction(null).ok).toBe(false);
    expect(parseAction('finish').ok).toBe(false);
  });

  it('allows only harmless keys', () => {
    for (const k of ALLOWED_KEYS) expect(parseAction({ step: { action: 'press', key: k } }).ok).toBe(true);
    expect(ALLOWED_KEYS).not.toContain('F12');
  });
});
