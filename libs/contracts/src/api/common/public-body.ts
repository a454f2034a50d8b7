import { z } from 'zod';

/**
 * Labels the Firecrawl SDKs add to every request body (`origin`, sometimes `integration`).
 * They carry no meaning for the service but a strict schema must not reject them.
 */
export const clientLabelsShape = {
  origin: z.string().max(500).optional().describe('Client label (SDK name and version); telemetry only'),
  integration: z.string().max(500).optional().describe('Integration label; telemetry only'),
};

/**
 * A public request body: unknown keys are rejected (a typo must not be silently ignored), except the
 * SDK labels above.
 */
export function publicBody<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject({ ...shape, ...clientLabelsShape });
}
