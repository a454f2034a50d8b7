import { z } from 'zod';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

/** RFC 1035 limits: a DNS name of at most 253 characters (without the root dot), labels of 1..63. */
const MAX_HOSTNAME = 253;
const MAX_LABEL = 63;

/**
 * Whether a parsed (ASCII, punycoded) hostname could exist in DNS. IP literals are left alone;
 * a name no resolver accepts is refused here rather than failing somewhere downstream.
 */
export function isPossibleHostname(hostname: string): boolean {
  if (hostname.startsWith('[')) return true;
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.length > MAX_HOSTNAME) return false;
  return name.split('.').every((label) => label.length > 0 && label.length <= MAX_LABEL);
}

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
  if (!isPossibleHostname(parsed.hostname)) return null;
  return candidate;
}

/**
 * The URL list of a batch or extract request: each URL that is not http(s) is an issue at
 * `urls.<i>` unless `ignoreInvalid`; with `ignoreInvalid`, a list with no valid URL is one.
 */
export function refineUrlList(urls: readonly string[], ignoreInvalid: boolean, ctx: z.RefinementCtx): void {
  let valid = 0;
  urls.forEach((url, i) => {
    if (normalizeHttpUrl(url) !== null) valid++;
    else if (!ignoreInvalid) {
      ctx.addIssue({
        code: 'custom',
        path: ['urls', i],
        message: `Invalid URL ${JSON.stringify(url.slice(0, 200))}: expected an http or https URL`,
      });
    }
  });
  if (valid === 0 && ignoreInvalid) {
    ctx.addIssue({ code: 'custom', path: ['urls'], message: 'No valid URL given' });
  }
}

/** A request's URLs split into the valid ones (scheme completed, trimmed) and the rest as written. */
export function splitUrlList(raw: readonly string[]): { urls: string[]; invalidURLs: string[] } {
  const urls: string[] = [];
  const invalidURLs: string[] = [];
  for (const r of raw) {
    const url = normalizeHttpUrl(r);
    if (url === null) invalidURLs.push(r);
    else urls.push(url);
  }
  return { urls, invalidURLs };
}

function invalidUrlMessage(value: string): string {
  const trimmed = value.trim();
  try {
    const { hostname } = new URL(SCHEME.test(trimmed) ? trimmed : `http://${trimmed}`);
    if (hostname.length > 0 && !isPossibleHostname(hostname)) {
      return `Invalid URL: the host name cannot exist (at most ${MAX_HOSTNAME} characters, labels of 1 to ${MAX_LABEL})`;
    }
  } catch {
    // not a URL at all: the generic message below
  }
  return 'Invalid URL: expected an http or https URL';
}

/** An http(s) URL in a request; a missing scheme becomes `http://`. Output is trimmed. */
export const HttpUrl = z
  .string()
  .max(8192)
  .transform((value, ctx) => {
    const url = normalizeHttpUrl(value);
    if (url === null) {
      ctx.addIssue({ code: 'custom', message: invalidUrlMessage(value), input: value });
      return z.NEVER;
    }
    return url;
  })
  .meta({ format: 'uri' });

export const IsoDateTime = z.iso.datetime({ offset: true });
