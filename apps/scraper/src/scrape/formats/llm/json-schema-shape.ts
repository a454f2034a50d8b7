/**
 * The caller's `json` schema as the model gets it (api-v2 / Firecrawl behaviour): a root array is
 * wrapped in an object under `items` and unwrapped afterwards; a bare property map (`{name:
 * {type: string}, ...}`) becomes an object schema requiring every property; `default` keywords
 * are dropped (they are not constraints and confuse grammar compilers). No schema: any object.
 */
export interface PreparedSchema {
  schema: Record<string, unknown>;
  unwrap(value: unknown): unknown;
}

const SCHEMA_KEYWORDS = new Set([
  'type',
  'properties',
  '$ref',
  'anyOf',
  'oneOf',
  'allOf',
  'enum',
  'const',
  'items',
  '$defs',
  'definitions',
  '$schema',
  'additionalProperties',
  'required',
  'not',
  'if',
  'patternProperties',
]);

export function prepareJsonSchema(schema: Record<string, unknown> | undefined): PreparedSchema {
  if (!schema || Object.keys(schema).length === 0) {
    return { schema: { type: 'object' }, unwrap: (v) => v };
  }
  let s = stripDefaults(schema) as Record<string, unknown>;
  if (isBarePropertyMap(s)) {
    s = { type: 'object', properties: s, required: Object.keys(s) };
  }
  if (s.type === 'array') {
    const { $schema, $defs, definitions, ...inner } = s;
    const wrapped: Record<string, unknown> = {
      type: 'object',
      properties: { items: inner },
      required: ['items'],
    };
    if ($schema !== undefined) wrapped.$schema = $schema;
    if ($defs !== undefined) wrapped.$defs = $defs;
    if (definitions !== undefined) wrapped.definitions = definitions;
    return { schema: wrapped, unwrap: (v) => (v as { items: unknown }).items };
  }
  return { schema: s, unwrap: (v) => v };
}

function isBarePropertyMap(s: Record<string, unknown>): boolean {
  const keys = Object.keys(s);
  if (keys.length === 0 || keys.some((k) => SCHEMA_KEYWORDS.has(k))) return false;
  return keys.every((k) => {
    const v = s[k];
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  });
}

/** Keywords whose values are maps of name → schema (a property may be called `default`). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function stripDefaults(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripDefaults);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'default') continue;
    if (SCHEMA_MAPS.has(k) && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, stripDefaults(sub)]));
    } else {
      out[k] = stripDefaults(v);
    }
  }
  return out;
}
