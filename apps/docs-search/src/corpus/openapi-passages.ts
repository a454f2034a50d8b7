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
 * request fields with their types, defaults, limits and descriptions, answers), cited by its JSON
 * pointer. An operation with many request fields is cut into parts, each cited by the pointer of
 * the body schema's first field in it.
 */
export function openApiPassages(doc: OpenApiDocument): Passage[] {
  const d = doc as unknown as {
    paths: Record<string, Record<string, Json>>;
    components: { schemas: Record<string, Json> };
  };
  const schemas = d.components.schemas;
  const passages: Passage[] = [];
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
      const responses = Object.keys((op.responses as Json | undefined) ?? {});
      lines.push(`Answers: ${responses.join(', ')}.`);
      const bodyRef = refName(
        ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as
          Json | undefined,
      );
      const fields: { name: string; line: string }[] = [];
      if (bodyRef) {
        const schema = resolve(schemas[bodyRef], schemas);
        const required = new Set((schema.required as string[] | undefined) ?? []);
        for (const [name, prop] of Object.entries(
          (schema.properties as Record<string, Json> | undefined) ?? {},
        )) {
          fields.push({
            name,
            line: `Body field ${name}${required.has(name) ? ' (required)' : ''}: ${describe(prop, schemas)}`,
          });
        }
        lines.push(
          `Request body: ${bodyRef}${fields.length ? ` with fields ${fields.map((f) => f.name).join(', ')}` : ''}.`,
        );
      }
      const headText = lines.join('\n');
      if (headText.length + fields.reduce((n, f) => n + f.line.length + 1, 0) <= MAX_PASSAGE_CHARS) {
        passages.push({
          source: 'openapi',
          ref,
          title,
          body: [headText, ...fields.map((f) => f.line)].join('\n'),
          lineStart: 0,
          lineEnd: 0,
        });
        continue;
      }
      passages.push({ source: 'openapi', ref, title, body: headText, lineStart: 0, lineEnd: 0 });
      let chunk: typeof fields = [];
      const flush = () => {
        if (!chunk.length) return;
        passages.push({
          source: 'openapi',
          ref: `openapi#/components/schemas/${pointerToken(bodyRef!)}/properties/${pointerToken(chunk[0].name)}`,
          title: `${title} › ${chunk.map((f) => f.name).join(', ')}`,
          body: `${head} request fields:\n${chunk.map((f) => f.line).join('\n')}`,
          lineStart: 0,
          lineEnd: 0,
        });
        chunk = [];
      };
      let size = 0;
      for (const f of fields) {
        if (size + f.line.length > MAX_PASSAGE_CHARS) {
          flush();
          size = 0;
        }
        chunk.push(f);
        size += f.line.length + 1;
      }
      flush();
    }
  }
  return passages;
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
