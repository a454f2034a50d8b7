import { z } from 'zod';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

/**
 * Firecrawl accepts a URL without a scheme (`example.com`) and assumes http; SDK users rely on it.
 * Returns the (trimmed, scheme-completed) URL as the caller wrote it, or null when it is not an
 * absolute http(s) URL. The text is not re-serialised so `metadata.sourceURL` echoes the request.
 */
export function normalizeHttpUrl(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed.length === 0) return null;
  const candidate = SCHEME.test(trimmed) ? trimmed : `http://${trimmed}`;
  let parsed: URL;
  try {
    parsed = new URL(candidate);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.hostname.length === 0) return null;
  return candidate;
}

/** An http(s) URL in a request; a missing scheme becomes `http://`. Output is trimmed. */
export const HttpUrl = z
  .string()
  .max(8192)
  .transform((value, ctx) => {
    const url = normalizeHttpUrl(value);
    if (url === null) {
      ctx.addIssue({ code: 'custom', message: 'Invalid URL: expected an http or https URL', input: value });
      return z.NEVER;
    }
    return url;
  })
  .meta({ format: 'uri' });

export const IsoDateTime = z.iso.datetime({ offset: true });
