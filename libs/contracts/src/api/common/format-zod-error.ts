import type { z } from 'zod';
import { ErrorCode, ServiceError } from '../../common/errors';

export interface ZodErrorDetail {
  /** Dotted path of the offending field (`formats.0`), empty for the whole body. */
  path: string;
  message: string;
  code: string;
}

export interface FormattedZodError {
  /** Human message naming the field(s), e.g. `formats.0: Invalid option: expected one of ...`. */
  message: string;
  details: ZodErrorDetail[];
}

type Issue = z.core.$ZodIssue;

const MAX_LISTED = 3;

function pathString(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/**
 * How badly a union branch missed: a branch whose issues sit at the value itself with a wrong type
 * was the wrong branch; the branch that got furthest into the value explains the real mistake.
 */
function branchScore(issues: readonly Issue[]): number {
  let score = issues.length;
  for (const issue of issues) {
    if (issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value'))
      score += 100;
    if (issue.path.length > 0) score -= 0.5;
  }
  return score;
}

function flatten(issues: readonly Issue[], base: readonly PropertyKey[], out: ZodErrorDetail[]): void {
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const best = [...issue.errors].sort((a, b) => branchScore(a) - branchScore(b))[0];
      flatten(best, path, out);
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      // Name each unknown key as its own field so the message points at the typo.
      for (const key of issue.keys) {
        out.push({ path: pathString([...path, key]), message: 'Unrecognized key', code: issue.code });
      }
      continue;
    }
    out.push({ path: pathString(path), message: issue.message, code: issue.code });
  }
}

/** Turns a zod error into the 400 answer's message and details. */
export function formatZodError(error: z.ZodError): FormattedZodError {
  const details: ZodErrorDetail[] = [];
  flatten(error.issues, [], details);
  const parts = details.slice(0, MAX_LISTED).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
  const more = details.length > MAX_LISTED ? ` (and ${details.length - MAX_LISTED} more)` : '';
  return { message: (parts.join('; ') || 'Invalid input') + more, details };
}

/** The BAD_REQUEST ServiceError for a failed parse: message names the field, details list every issue. */
export function validationError(error: z.ZodError): ServiceError {
  const { message, details } = formatZodError(error);
  return new ServiceError(ErrorCode.BAD_REQUEST, message, details);
}

/** Parses or throws `validationError(...)`, so HTTP answers 400 and NATS replies carry the same envelope. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error);
  return result.data;
}
