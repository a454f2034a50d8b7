/**
 * Merges the JSON answers of an extract job's pages into one value (pure; no I/O).
 *
 * - Objects merge key by key (the schema's property order first, then the order keys were seen).
 * - Arrays are concatenated in page order and de-duplicated: items equal up to key order, case and
 *   surrounding white space are one item (the first one seen is kept).
 * - Scalars are chosen by agreement: the value most pages gave wins; a tie goes to the earliest
 *   page (pages are in request order). Empty answers (null, "", missing) never outvote a value.
 * - A list never grows past the schema's `maxItems` (the earliest items are kept).
 * - The schema decides a field's kind where it names one (`type: array` keeps a list even when a
 *   page answered a single item); otherwise the kind most pages used.
 *
 * `sources` maps every field path of the result (`a.b`, `list[2]`, `list[2].name`) to the URLs of
 * the pages that gave that value.
 */

export interface PageAnswer {
  url: string;
  data: unknown;
}

export interface MergeOutcome {
  data: unknown;
  sources: Record<string, string[]>;
}

type JsonSchemaNode = Record<string, unknown>;

interface Contribution {
  urls: string[];
  value: unknown;
}

type Kind = 'array' | 'object' | 'scalar';

export function mergeExtracts(pages: readonly PageAnswer[], schema?: JsonSchemaNode): MergeOutcome {
  const sources: Record<string, string[]> = {};
  const contributions = pages.map((p) => ({ urls: [p.url], value: p.data }));
  const data = mergeAt(contributions, schema, '', sources);
  return { data: data === undefined || data === null ? emptyFor(schema) : data, sources };
}

function mergeAt(
  values: readonly Contribution[],
  schema: JsonSchemaNode | undefined,
  path: string,
  sources: Record<string, string[]>,
): unknown {
  const present = values.filter((c) => !isEmpty(c.value));
  if (present.length === 0) {
    // Nothing but empty answers: keep the first one's shape (null, "" or []), or nothing at all.
    const first = values.find((c) => c.value !== undefined);
    return first?.value;
  }
  const kind = kindFor(schema, present);
  if (kind === 'array') return mergeArrays(present, schema, path, sources);
  if (kind === 'object') return mergeObjects(present, schema, path, sources);
  return pickScalar(present, path, sources);
}

function mergeArrays(
  values: readonly Contribution[],
  schema: JsonSchemaNode | undefined,
  path: string,
  sources: Record<string, string[]>,
): unknown[] {
  const itemSchema = asSchema(schema?.items);
  const items: { key: string; value: unknown; urls: string[] }[] = [];
  const byKey = new Map<string, { urls: string[] }>();
  for (const c of values) {
    const list = Array.isArray(c.value) ? c.value : [c.value];
    for (const item of list) {
      if (isEmpty(item)) continue;
      const key = identity(item);
      const known = byKey.get(key);
      if (known) {
        for (const u of c.urls) if (!known.urls.includes(u)) known.urls.push(u);
        continue;
      }
      const entry = { key, value: item, urls: [...c.urls] };
      byKey.set(key, entry);
      items.push(entry);
    }
  }
  // The merged list keeps within the schema's `maxItems` (each page's list already did): the
  // earliest items stay.
  const max = typeof schema?.maxItems === 'number' && schema.maxItems >= 0 ? schema.maxItems : Infinity;
  return items.slice(0, max).map((item, i) => {
    const itemPath = `${path}[${i}]`;
    // An item is one page's value as it stands; its fields come from the pages that listed it.
    const merged = mergeAt([{ urls: item.urls, value: item.value }], itemSchema, itemPath, sources);
    sources[itemPath] = item.urls;
    return merged;
  });
}

function mergeObjects(
  values: readonly Contribution[],
  schema: JsonSchemaNode | undefined,
  path: string,
  sources: Record<string, string[]>,
): Record<string, unknown> {
  const objects = values.filter((c) => isPlainObject(c.value)) as {
    urls: string[];
    value: Record<string, unknown>;
  }[];
  const properties = asSchema(schema?.properties) ?? {};
  const keys: string[] = [...Object.keys(properties)];
  for (const o of objects) for (const k of Object.keys(o.value)) if (!keys.includes(k)) keys.push(k);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const present = objects
      .filter((o) => Object.prototype.hasOwnProperty.call(o.value, key))
      .map((o) => ({ urls: o.urls, value: o.value[key] }));
    if (present.length === 0) continue;
    const merged = mergeAt(present, asSchema(properties[key]), path ? `${path}.${key}` : key, sources);
    if (merged !== undefined) out[key] = merged;
  }
  return out;
}

function pickScalar(
  values: readonly Contribution[],
  path: string,
  sources: Record<string, string[]>,
): unknown {
  const groups: { key: string; value: unknown; urls: string[] }[] = [];
  for (const c of values) {
    const key = identity(c.value);
    const group = groups.find((g) => g.key === key);
    if (group) group.urls.push(...c.urls.filter((u) => !group.urls.includes(u)));
    else groups.push({ key, value: c.value, urls: [...c.urls] });
  }
  // Most pages win; `groups` is in page order, and a stable sort keeps the earliest first on a tie.
  const best = [...groups].sort((a, b) => b.urls.length - a.urls.length)[0];
  if (path) sources[path] = best.urls;
  return best.value;
}

function kindFor(schema: JsonSchemaNode | undefined, values: readonly Contribution[]): Kind {
  const declared = declaredType(schema);
  if (declared === 'array') return 'array';
  if (declared === 'object') return 'object';
  if (declared !== undefined) return 'scalar';
  const counts: Record<Kind, number> = { array: 0, object: 0, scalar: 0 };
  for (const c of values) counts[kindOf(c.value)]++;
  return (['object', 'array', 'scalar'] as const).reduce(
    (best, k) => (counts[k] > counts[best] ? k : best),
    'object',
  );
}

function declaredType(schema: JsonSchemaNode | undefined): string | undefined {
  if (!schema) return undefined;
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null');
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

function kindOf(value: unknown): Kind {
  if (Array.isArray(value)) return 'array';
  if (isPlainObject(value)) return 'object';
  return 'scalar';
}

function emptyFor(schema: JsonSchemaNode | undefined): unknown {
  const t = declaredType(schema);
  if (t === 'array') return [];
  if (t === 'object' || t === undefined) return {};
  return null;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmpty);
  if (isPlainObject(value)) return Object.values(value).every(isEmpty);
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asSchema(value: unknown): JsonSchemaNode | undefined {
  return isPlainObject(value) ? value : undefined;
}

/** What makes two answers the same: key order, case and surrounding white space do not count. */
export function identity(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (typeof value === 'string') return value.trim().replace(/\s+/g, ' ').toLowerCase();
  if (Array.isArray(value)) return value.map(normalise);
  if (isPlainObject(value)) {
    return Object.keys(value)
      .filter((k) => !isEmpty(value[k]))
      .sort()
      .map((k) => [k, normalise(value[k])]);
  }
  return value;
}
