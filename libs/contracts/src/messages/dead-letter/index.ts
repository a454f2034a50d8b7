import { z } from 'zod';
import { ErrorEnvelope } from '../../common/errors';

export const DLQ_PREFIX = 'wds.dlq.v1.';

/** Where a message that failed on `originalSubject` is parked. */
export function deadLetterSubject(originalSubject: string): string {
  return DLQ_PREFIX + originalSubject;
}

export const DeadLetter = z.object({
  originalSubject: z.string().min(1),
  /** Short cause, e.g. `invalid_payload`, `max_deliveries`, `handler_error`. */
  reason: z.string().min(1),
  error: ErrorEnvelope,
  /**
   * The original bytes: UTF-8 text when they were valid text, else base64. For a message that ran
   * with zero data retention (`redacted`), only its identifiers as JSON.
   */
  payload: z.string(),
  payloadEncoding: z.enum(['utf8', 'base64']),
  headers: z.record(z.string(), z.string()),
  failedAt: z.iso.datetime({ offset: true }),
  deliveryCount: z.int().min(0),
  /**
   * The message carried `zeroDataRetention: true`: the dead letter keeps only its identifiers (top-level
   * `id`, `type`, `seq` and `…Id` values), and the message itself was deleted from its stream.
   */
  redacted: z.boolean().optional(),
});
export type DeadLetter = z.output<typeof DeadLetter>;
