import { ErrorCode, ServiceError, formatZodError } from '@wds/contracts';
import type { z } from 'zod';

/**
 * Parses a request part with its contracts schema; a failure is a 400 whose message names the
 * field (`url: Invalid URL`, `bogus: Unrecognized key`). `part` prefixes query/path messages.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(value ?? (part === 'body' ? undefined : {}));
  if (result.success) return result.data;
  const { message, details } = formatZodError(result.error);
  const where = part === 'body' ? '' : `Invalid ${part} parameter: `;
  throw new ServiceError(ErrorCode.BAD_REQUEST, `${where}${message}`, details);
}
