import { z } from 'zod';

/** RFC 9110 §5.6.2 `token`: the only characters a field name may have. */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * RFC 9110 §5.5 field value: visible ASCII, obs-text (0x80-0xFF), space and tab inside; no
 * CR, LF, NUL or other controls (Node, undici and Chromium all refuse them, each differently).
 */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Names that frame or route the message: set by the client library (or the browser) itself, and a
 * user value either breaks the request (undici throws on several) or smuggles a second one.
 */
export const FORBIDDEN_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'http2-settings',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export const MAX_USER_HEADERS = 64;
const MAX_NAME_LENGTH = 256;
const MAX_VALUE_LENGTH = 8192;

/** Why a header name/value pair cannot be sent, or null when it can. */
export function headerProblem(name: string, value: string): string | null {
  if (name.length === 0) return 'a header name must not be empty';
  if (name.length > MAX_NAME_LENGTH) return `header name longer than ${MAX_NAME_LENGTH} characters`;
  if (!FIELD_NAME.test(name))
    return `invalid header name ${JSON.stringify(name.slice(0, 100))}: only RFC 9110 token characters are allowed`;
  if (FORBIDDEN_REQUEST_HEADERS.has(name.toLowerCase()))
    return `header ${JSON.stringify(name)} is set by the client itself and cannot be given`;
  if (value.length > MAX_VALUE_LENGTH)
    return `value of header ${name} is longer than ${MAX_VALUE_LENGTH} characters`;
  if (!FIELD_VALUE.test(value))
    return `invalid value of header ${name}: control characters (CR, LF, NUL, ...) and characters above U+00FF are not allowed`;
  return null;
}

/** User-supplied request headers (scrape `headers`, webhook `headers`), valid per RFC 9110. */
export const HttpHeaders = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > MAX_USER_HEADERS) {
    ctx.addIssue({ code: 'custom', message: `at most ${MAX_USER_HEADERS} headers are allowed` });
    return;
  }
  for (const name of names) {
    const problem = headerProblem(name, headers[name]);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: [name], message: problem });
  }
});
