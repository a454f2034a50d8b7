import { z } from 'zod';

/** Proxy location and emulated language/timezone. */
export const Location = z.strictObject({
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Expected an ISO 3166-1 alpha-2 country code')
    .toUpperCase()
    .default('US')
    .describe('Country code (ISO 3166-1 alpha-2)'),
  languages: z.array(z.string().min(2).max(35)).max(20).optional().describe('Language tags, e.g. en-US'),
});
export type Location = z.output<typeof Location>;
export type LocationInput = z.input<typeof Location>;
