import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { ErrorCode, ServiceError, formatZodError } from '@wds/contracts';
import type { z } from 'zod';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Parses bytes as JSON; undefined when they are not valid UTF-8 JSON. */
export function decodeJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: data.length ? JSON.parse(decoder.decode(data)) : undefined };
  } catch {
    return { ok: false };
  }
}

/** The original bytes for a dead letter: text when they were valid UTF-8, else base64. */
export function describeBytes(data: Uint8Array): { payload: string; payloadEncoding: 'utf8' | 'base64' } {
  try {
    return { payload: decoder.decode(data), payloadEncoding: 'utf8' };
  } catch {
    return { payload: Buffer.from(data).toString('base64'), payloadEncoding: 'base64' };
  }
}

export function headersToRecord(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const key of h.keys()) out[key] = h.get(key);
  return out;
}

export function recordToHeaders(record: Record<string, string>): MsgHdrs {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(record)) h.set(k, v);
  return h;
}

/** Validates with `schema` or throws a BAD_REQUEST ServiceError whose message names the fields. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const formatted = formatZodError(result.error);
  throw new ServiceError(ErrorCode.BAD_REQUEST, `invalid ${what}: ${formatted.message}`, formatted.details);
}

/** True when `subject` is matched by the NATS subject pattern (`*` one token, `>` the rest). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}
