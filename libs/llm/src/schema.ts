import Ajv, { type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import { LlmError } from './errors';

/**
 * The schema's `pattern` and `patternProperties` run with RE2's algorithm (re2js: time linear in the
 * input), not JavaScript's backtracking engine: the schema is the caller's and the string it tests
 * is the model's, which the page steers, so `"pattern": "^(a+)+$"` against `aaaa…a!` would hold the
 * service's event loop (every team's work on the replica) for minutes. RE2 has no backreferences or
 * lookaround: a schema with them is refused as invalid (400).
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    let re: RE2JS;
    try {
      re = RE2JS.compile(pattern);
    } catch (err) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is not supported (RE2 syntax: no backreferences or lookaround): ${(err as Error).message}`,
      );
    }
    // Ajv caches compiled patterns by their string form: it must name the pattern.
    return { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

/**
 * Validates model output against the caller's JSON Schema. Callers send draft-07 (most tools,
 * zod-to-json-schema) or 2020-12 (zod 4's toJSONSchema); `$schema` picks the dialect. Unknown
 * keywords are tolerated (strict: false) since real-world schemas carry `title`, `examples`, ….
 */
// Created on first use: building an Ajv instance compiles its meta-schemas (costly at service start).
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const cache = new Map<string, ValidateFunction>();
const MAX_CACHE = 500;

export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv =
    dialect.includes('2020-12') || dialect.includes('2019-09')
      ? (draft2020 ??= addFormats(
          new Ajv2020({ strict: false, allErrors: true, code: { regExp: linearRegExp } }),
        ))
      : (draft7 ??= addFormats(new Ajv({ strict: false, allErrors: true, code: { regExp: linearRegExp } })));
  const { $schema: _ignored, ...rest } = schema;
  let fn: ValidateFunction;
  try {
    fn = ajv.compile(rest);
  } catch (err) {
    throw new LlmError('invalid_schema', `The JSON schema is invalid: ${(err as Error).message}`);
  }
  if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
  cache.set(key, fn);
  return fn;
}

export interface Validation {
  valid: boolean;
  /** Parsed value (also when invalid, for the repair prompt). */
  value: unknown;
  /** Human-readable problems, empty when valid. */
  errors: string[];
}

/** Parses the model's text (tolerating a ```json fence around it) and validates it. */
export function parseAndValidate(text: string, validate: ValidateFunction): Validation {
  const body = stripFence(text);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { valid: false, value: undefined, errors: [`not valid JSON: ${(err as Error).message}`] };
  }
  if (validate(value)) return { valid: true, value, errors: [] };
  const errors = (validate.errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  return { valid: false, value, errors };
}

function stripFence(text: string): string {
  const t = text.trim();
  const m = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(t);
  return m ? m[1] : t;
}
