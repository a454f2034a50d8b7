import iconv from 'iconv-lite';

/** How many leading bytes are searched for `<meta charset>` (the HTML spec's pre-scan reads 1024; pages vary). */
const SNIFF_BYTES = 4096;

const META_RE = /<meta\s[^>]*?charset\s*=\s*["']?\s*([a-z0-9_.:-]+)/i;
const XML_DECL_RE = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([a-z0-9_.:-]+)["']/i;
const CT_CHARSET_RE = /;\s*charset\s*=\s*["']?([^"';\s]+)/i;

/**
 * Canonical WHATWG encoding name for a label, or undefined when Node's TextDecoder (full ICU) does not
 * know it. Note `iso-8859-1` and `us-ascii` map to `windows-1252`, as in browsers.
 */
export function normalizeCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const key = label.trim().toLowerCase();
  // Each lookup opened an ICU converter; labels are few, so the answers are kept.
  let known = canonicalNames.get(key);
  if (known === undefined) {
    try {
      known = new TextDecoder(key).encoding;
    } catch {
      known = null;
    }
    if (canonicalNames.size >= CANONICAL_NAMES_MAX) canonicalNames.clear();
    canonicalNames.set(key, known);
  }
  return known ?? undefined;
}

/** Canonical encoding by lower-cased label; null = unknown label. */
const canonicalNames = new Map<string, string | null>();
const CANONICAL_NAMES_MAX = 512;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const m = CT_CHARSET_RE.exec(contentType ?? '');
  return normalizeCharset(m?.[1]);
}

function bomCharset(body: Buffer): string | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function declaredCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, SNIFF_BYTES).toString('latin1');
  const label = META_RE.exec(head)?.[1] ?? XML_DECL_RE.exec(head)?.[1];
  const charset = normalizeCharset(label);
  // A declaration readable as ASCII cannot be UTF-16; browsers treat it as UTF-8 (HTML spec, prescan).
  if (charset === 'utf-16le' || charset === 'utf-16be') return 'utf-8';
  if (charset === 'x-user-defined') return 'windows-1252';
  return charset;
}

/**
 * The charset to decode a body with: a byte-order mark wins (it is unambiguous, as in the HTML
 * encoding-sniffing algorithm), then the Content-Type charset, then `<meta charset>` /
 * `<meta http-equiv="Content-Type">` / `<?xml encoding?>` in the first 4 KB, else utf-8.
 */
export function sniffCharset(body: Buffer, contentType?: string): string {
  return bomCharset(body) ?? charsetFromContentType(contentType) ?? declaredCharset(body) ?? 'utf-8';
}

export function decodeBody(body: Buffer, contentType?: string): { text: string; charset: string } {
  const charset = sniffCharset(body, contentType);
  return { text: decodeWith(body, charset), charset };
}

/** Shared decoders for the Unicode charsets: a decode call without `stream` keeps no state. */
const unicodeDecoders = new Map<string, InstanceType<typeof TextDecoder>>();

function decodeWith(body: Buffer, charset: string): string {
  if (charset === 'utf-8' || charset === 'utf-16le' || charset === 'utf-16be') {
    let decoder = unicodeDecoders.get(charset);
    if (!decoder) unicodeDecoders.set(charset, (decoder = new TextDecoder(charset)));
    return decoder.decode(body);
  }
  // Node 20's TextDecoder decodes windows-1252 as ISO-8859-1 (0x80-0x9F become C1 controls instead of
  // € – “ ” …), so legacy charsets go through iconv-lite; the few it lacks (iso-2022-jp) fall back.
  if (iconv.encodingExists(charset)) return iconv.decode(body, charset);
  return new TextDecoder(charset).decode(body);
}

/** Whether a response's bytes are text worth reporting a charset for (HTML, XML, JSON, JS, text/*). */
export function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const type = contentType.split(';')[0].trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type.endsWith('+xml') ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type === 'application/json' ||
    type === 'application/javascript' ||
    type === 'application/xhtml+xml'
  );
}
