import { LlmError, addUsage, NO_USAGE, type LlmPort, type LlmUsage } from '@wds/llm';

export interface JsonChangesCommand {
  previous: string;
  current: string;
  /** The unified diff of the two (git-diff), what the model reads when there is no schema. */
  diff: string;
  schema?: Record<string, unknown>;
  prompt?: string;
  url: string;
  /** The team the comparison is for (LlmRequest.tenant). */
  teamId?: string;
  signal: AbortSignal;
}

export interface JsonChangesResult {
  /** `{field: {previous, current}}` for the fields that differ, or the model's list of changes. */
  json?: Record<string, unknown>;
  warnings: string[];
  usage: LlmUsage;
  model?: string;
  /** Whether the model was called (the format's credits are owed). */
  called: boolean;
}

const EXTRACT_SYSTEM =
  'You read one version of a web page (as markdown) and fill in the JSON schema with what that version says. Use only facts stated in the page; leave a field out when the page does not state it.';

const CHANGES_SYSTEM =
  'You are given a unified diff between the previous and the current version of a web page (lines starting with - were removed, + were added). List what changed in the content, one entry per change, quoting the old and the new value as they appear in the diff. Ignore changes of layout or whitespace only.';

/** Used when the caller gives no schema: one entry per change the model reads in the diff. */
const CHANGES_SCHEMA = {
  type: 'object',
  properties: {
    changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          what: { type: 'string' },
          previous: { type: 'string' },
          current: { type: 'string' },
        },
        required: ['what', 'previous', 'current'],
      },
    },
  },
  required: ['changes'],
} as const;

/**
 * changeTracking's `json` mode, through the LLM port. With a `schema`: both versions are extracted
 * with it and the fields whose values differ are returned as `{field: {previous, current}}`. Without
 * one: the model lists the changes it reads in the unified diff (`{changes: [{what, previous,
 * current}]}`), guided by `prompt`. Model failures become warnings, never invented data.
 */
export class JsonChanges {
  constructor(private readonly llm: LlmPort) {}

  async execute(cmd: JsonChangesCommand): Promise<JsonChangesResult> {
    try {
      return cmd.schema ? await this.bySchema(cmd, cmd.schema) : await this.byDiff(cmd);
    } catch (err) {
      if (err instanceof LlmError) {
        return {
          warnings: [`Change tracking json mode failed: ${err.message}`],
          usage: NO_USAGE,
          called: true,
        };
      }
      throw err;
    }
  }

  private async bySchema(
    cmd: JsonChangesCommand,
    schema: Record<string, unknown>,
  ): Promise<JsonChangesResult> {
    const instruction = cmd.prompt ?? 'Extract the data the schema describes.';
    const extract = (text: string) =>
      this.llm.structured({
        feature: 'changeTracking',
        schema,
        schemaName: 'page_data',
        system: EXTRACT_SYSTEM,
        instruction,
        document: { text, source: cmd.url },
        temperature: 0,
        signal: cmd.signal,
        tenant: cmd.teamId,
      });
    const [before, after] = await Promise.all([extract(cmd.previous), extract(cmd.current)]);
    const usage = addUsage(before.usage, after.usage);
    const warnings = unique([...before.warnings, ...after.warnings]);
    if (!before.valid || !after.valid) {
      return {
        warnings: [
          ...warnings,
          'Change tracking json mode: the model gave no schema-valid answer; no json comparison.',
        ],
        usage,
        model: after.model,
        called: true,
      };
    }
    return {
      json: changedFields(before.value, after.value),
      warnings,
      usage,
      model: after.model,
      called: true,
    };
  }

  private async byDiff(cmd: JsonChangesCommand): Promise<JsonChangesResult> {
    const r = await this.llm.structured({
      feature: 'changeTracking',
      schema: CHANGES_SCHEMA as unknown as Record<string, unknown>,
      schemaName: 'page_changes',
      system: CHANGES_SYSTEM,
      instruction: cmd.prompt ?? 'List the changes.',
      document: { text: cmd.diff, source: cmd.url },
      temperature: 0,
      signal: cmd.signal,
      tenant: cmd.teamId,
    });
    if (!r.valid) {
      return {
        warnings: [...r.warnings, 'Change tracking json mode: the model gave no schema-valid answer.'],
        usage: r.usage,
        model: r.model,
        called: true,
      };
    }
    return {
      json: r.value as Record<string, unknown>,
      warnings: r.warnings,
      usage: r.usage,
      model: r.model,
      called: true,
    };
  }
}

/** `{key: {previous, current}}` for the top-level keys whose values differ (JSON comparison). */
export function changedFields(
  previous: unknown,
  current: unknown,
): Record<string, { previous: unknown; current: unknown }> {
  const a = isRecord(previous) ? previous : {};
  const b = isRecord(current) ? current : {};
  const out: Record<string, { previous: unknown; current: unknown }> = {};
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (stable(a[key]) !== stable(b[key])) out[key] = { previous: a[key] ?? null, current: b[key] ?? null };
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted, so key order alone is not a change. */
function stable(v: unknown): string {
  return (
    JSON.stringify(v, (_k, value: unknown) =>
      isRecord(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, value[k]]),
          )
        : value,
    ) ?? 'undefined'
  );
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
