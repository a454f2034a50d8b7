import type { OpenApiDocument } from '@wds/contracts';
import { MAX_PASSAGE_CHARS } from './split-markdown';
import type { Passage } from './passage';

type Json = Record<string, unknown>;

/** `/v2/crawl/{id}` → `~1v2~1crawl~1{id}` (JSON pointer escaping, RFC 6901). */
export function pointerToken(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * One passage per operation of the served OpenAPI document (method, path, summary, tag, parameters,
 * its HTTP answers with the meaning of the less common ones, request fields and the success answer's
 * fields with their types, values, defaults, limits and descriptions), cited by its JSON pointer.
 * An operation with many fields is cut into parts, each cited by the pointer of its first field in
 * its schema.
 */
export function openApiPassages(doc: OpenApiDocument): Passage[] {
  const d = doc as unknown as {
    paths: Record<string, Record<string, Json>>;
    components: { schemas: Record<string, Json>; responses?: Record<string, Json> };
  };
  const schemas = d.components.schemas;
  const sharedResponses = d.components.responses ?? {};
  const common = commonAnswers(d.paths);
  const passages: Passage[] = [];
  /** Schemas whose fields have passages of their own already. */
  const described = new Set<string>();
  for (const [path, methods] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const head = `${method.toUpperCase()} ${path}`;
      const title = `API › ${head}${op.summary ? ` — ${String(op.summary)}` : ''}`;
      const ref = `openapi#/paths/${pointerToken(path)}/${method}`;
      const lines: string[] = [`${head}: ${String(op.summary ?? '')}.`];
      if (Array.isArray(op.tags))
        lines.push(`Group: ${op.tags.join(', ')}. Operation id: ${String(op.operationId)}.`);
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        lines.push(
          `Parameter ${String(p.name)} (in ${String(p.in)}${p.required ? ', required' : ''}): ${describe(p.schema as Json, schemas)}${p.description ? `. ${String(p.description)}` : ''}`,
        );
      }
      const responses = Object.entries((op.responses as Record<string, Json> | undefined) ?? {});
      // Last in the passage, after the fields, and not counted in its size: it must not push the
      // operation's own fields out of it.
      const answers = answersLine(responses, sharedResponses, common);
      const bodyRef = refName(
        ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as
          Json | undefined,
      );
      const fields: Field[] = [];
      if (bodyRef) {
        const body = schemaFields(bodyRef, schemas, 'Body field');
        fields.push(...body);
        lines.push(
          `Request body: ${bodyRef}${body.length ? ` with fields ${body.map((f) => f.name).join(', ')}` : ''}.`,
        );
      }
      const success = responses.find(([code]) => code.startsWith('2'));
      const resultRef =
        success && refName(((success[1].content as Json | undefined) ?? {})['application/json'] as Json);
      if (resultRef) {
        const result = schemaFields(resultRef, schemas, 'Answer field');
        fields.push(...result);
        lines.push(
          `Answer body (${success[0]}): ${resultRef}${result.length ? ` with fields ${result.map((f) => f.name).join(', ')}` : ''}.`,
        );
      }
      const headText = lines.join('\n');
      // The operation's passage holds its fields while they fit: all of them, else the request's
      // (the answer's go to parts of their own), else none.
      const size = (list: Field[]) => headText.length + list.reduce((n, f) => n + f.line.length + 1, 0);
      const request = fields.filter((f) => f.kind === 'Body field');
      const inline =
        size(fields) <= MAX_PASSAGE_CHARS ? fields : size(request) <= MAX_PASSAGE_CHARS ? request : [];
      passages.push({
        source: 'openapi',
        ref,
        title,
        body: [headText, ...inline.map((f) => f.line), answers].join('\n'),
        lineStart: 0,
        lineEnd: 0,
      });
      const rest = fields.filter((f) => !inline.includes(f));
      let chunk: typeof fields = [];
      const flush = () => {
        if (!chunk.length) return;
        passages.push({
          source: 'openapi',
          ref: `openapi#/components/schemas/${pointerToken(chunk[0].schema)}/properties/${pointerToken(chunk[0].name)}`,
          title: `${title} › ${chunk.map((f) => f.name).join(', ')}`,
          body: `${head} ${chunk[0].kind === 'Body field' ? 'request' : 'answer'} fields:\n${chunk.map((f) => f.line).join('\n')}`,
          lineStart: 0,
          lineEnd: 0,
        });
        chunk = [];
      };
      let partChars = 0;
      // A schema shared by two operations (an alias route) gets its parts once, under the first.
      for (const f of rest.filter((x) => !described.has(x.schema))) {
        // A part holds fields of one schema: the request's or the answer's.
        if (partChars + f.line.length > MAX_PASSAGE_CHARS || (chunk.length && chunk[0].schema !== f.schema)) {
          flush();
          partChars = 0;
        }
        chunk.push(f);
        partChars += f.line.length + 1;
      }
      flush();
      for (const f of rest) described.add(f.schema);
    }
  }
  return passages;
}

interface Field {
  /** The schema the field belongs to (request body or success answer). */
  schema: string;
  kind: 'Body field' | 'Answer field';
  name: string;
  line: string;
}

/** A schema's fields, each as one line: `Body field limit: integer, 1 to 100, default 10. …`. */
function schemaFields(name: string, schemas: Record<string, Json>, kind: Field['kind']): Field[] {
  const schema = resolve(schemas[name], schemas);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties as Record<string, Json> | undefined) ?? {}).map(
    ([field, prop]) => ({
      schema: name,
      kind,
      name: field,
      line: `${kind} ${field}${kind === 'Body field' && required.has(field) ? ' (required)' : ''}: ${describe(prop, schemas)}`,
    }),
  );
}

/**
 * An operation's HTTP answers: their codes, then the meaning of each that is not `common` (given by
 * more than `COMMON_ANSWER_SHARE` of all operations): `HTTP answers: 200, 401, 409, 429, 500. 409:
 * Conflict (e.g. replay context unavailable; rerun the scrape).`
 */
function answersLine(answers: [string, Json][], shared: Record<string, Json>, common: Set<string>): string {
  const meanings = answers
    .filter(([code]) => !common.has(code))
    .flatMap(([code, response]) => {
      const ref = response.$ref;
      const r =
        typeof ref === 'string' ? (shared[ref.replace('#/components/responses/', '')] ?? {}) : response;
      return r.description ? [`${code}: ${String(r.description)}`] : [];
    });
  return `HTTP answers: ${answers.map(([code]) => code).join(', ')}.${meanings.length ? ` ${meanings.join('; ')}.` : ''}`;
}

/**
 * The share of operations above which an HTTP answer's meaning is left out of their passages: a
 * meaning nearly all of them would repeat (401, 429, 500) drew the small model into listing error
 * codes for unrelated questions and lent every operation the same words; the API spec's errors
 * table states each once.
 */
const COMMON_ANSWER_SHARE = 0.2;

/** The HTTP answers given by more than `COMMON_ANSWER_SHARE` of the document's operations. */
function commonAnswers(paths: Record<string, Record<string, Json>>): Set<string> {
  const ops = Object.values(paths).flatMap((methods) => Object.values(methods));
  const count = new Map<string, number>();
  for (const op of ops)
    for (const code of Object.keys((op.responses as Json | undefined) ?? {}))
      count.set(code, (count.get(code) ?? 0) + 1);
  return new Set([...count].filter(([, n]) => n > COMMON_ANSWER_SHARE * ops.length).map(([code]) => code));
}

function refName(holder: Json | undefined): string | undefined {
  const ref = (holder?.schema as Json | undefined)?.$ref;
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
}

function resolve(schema: Json | undefined, schemas: Record<string, Json>, depth = 0): Json {
  if (!schema) return {};
  if (typeof schema.$ref === 'string' && depth < 5)
    return resolve(schemas[schema.$ref.replace('#/components/schemas/', '')], schemas, depth + 1);
  return schema;
}

/** A field's type and rules in words: `integer, 1–100, default 50. Results per page`. */
function describe(raw: Json | undefined, schemas: Record<string, Json>): string {
  const s = resolve(raw, schemas);
  const parts: string[] = [];
  if (Array.isArray(s.enum)) parts.push(`one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  else if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const alts = ((s.anyOf ?? s.oneOf) as Json[]).map((a) => typeName(resolve(a, schemas)));
    parts.push(`${[...new Set(alts)].join(' or ')}`);
  } else parts.push(typeName(s));
  const min = s.minimum ?? s.minLength ?? s.minItems;
  const max = s.maximum ?? s.maxLength ?? s.maxItems;
  const unit =
    s.minLength !== undefined || s.maxLength !== undefined
      ? ' characters'
      : s.maxItems !== undefined
        ? ' items'
        : '';
  if (min !== undefined && max !== undefined && Number(max) < Number.MAX_SAFE_INTEGER)
    parts.push(`${String(min)} to ${String(max)}${unit}`);
  else if (max !== undefined && Number(max) < Number.MAX_SAFE_INTEGER)
    parts.push(`at most ${String(max)}${unit}`);
  else if (min !== undefined && Number(min) > 0) parts.push(`at least ${String(min)}${unit}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  const text = parts.join(', ');
  return s.description ? `${text}. ${String(s.description)}` : text;
}

function typeName(s: Json): string {
  if (typeof s.$ref === 'string') return s.$ref.replace('#/components/schemas/', '');
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (s.type === 'array') {
    const items = s.items as Json | undefined;
    return `array of ${items ? typeName(items) : 'values'}`;
  }
  if (typeof s.type === 'string') return s.format ? `${s.type} (${String(s.format)})` : s.type;
  if (Array.isArray(s.type)) return s.type.join(' or ');
  if (s.properties) return 'object';
  return 'value';
}
