import { z } from 'zod';

/** BCP 47 shape (primary language, then subtags); what Chromium's locale and Accept-Language take. */
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/;

function isLocale(tag: string): boolean {
  try {
    new Intl.Locale(tag.replace(/_/g, '-'));
    return true;
  } catch {
    return false;
  }
}

/** Proxy location and emulated language/timezone. */
export const Location = z.strictObject({
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Expected an ISO 3166-1 alpha-2 country code')
    .toUpperCase()
    .default('US')
    .describe('Country code (ISO 3166-1 alpha-2)'),
  languages: z
    .array(
      z
        .string()
        .max(35)
        .regex(LANGUAGE_TAG, 'Expected a BCP 47 language tag such as en-US or de')
        .refine(isLocale, 'Expected a BCP 47 language tag such as en-US or de'),
    )
    .max(20)
    .optional()
    .describe('Language tags, e.g. en-US'),
});
export type Location = z.output<typeof Location>;
export type LocationInput = z.input<typeof Location>;
