import { decodeHTMLAttribute } from 'entities';

// Characters that URL parsing would leave untouched: such absolute http(s) URLs are returned as is,
// which skips the WHATWG parser for the common case (it dominates link-heavy pages otherwise).
const PLAIN_ABSOLUTE = /^https?:\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)+(\/[A-Za-z0-9\-._~:/?#@!$&()*+,;=%]*)?$/;
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~:/?#@!$&()*+,;=%]*$/;
const PLAIN_FRAGMENT = /^#[A-Za-z0-9\-._~:/?#@!$&()*+,;=%]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

/** Resolves raw (entity-encoded) attribute URLs against the document base, with a per-page cache. */
export class UrlResolver {
  private readonly cache = new Map<string, string | null>();
  private readonly base: URL | null;
  private readonly origin: string | null;
  /** Base URL without its fragment: prefix for `#fragment` references. */
  private readonly page: string | null;

  constructor(pageUrl: string, baseHref: string | undefined) {
    let base: URL | null = null;
    try {
      base = new URL(pageUrl);
    } catch {
      base = null;
    }
    if (baseHref !== undefined && baseHref.trim() !== '') {
      try {
        base = new URL(decodeHTMLAttribute(baseHref).trim(), base ?? undefined);
      } catch {
        // An unusable <base href> is ignored, as browsers do.
      }
    }
    this.base = base;
    this.origin = base !== null && /^https?:$/.test(base.protocol) ? base.origin : null;
    this.page = this.origin === null || base === null ? null : base.href.replace(/#.*$/, '');
  }

  /** Absolute URL, or null for empty/unparsable values. `javascript:`/`data:` etc. are returned as parsed. */
  resolve(raw: string): string | null {
    let hit = this.cache.get(raw);
    if (hit === undefined) {
      hit = this.compute(raw);
      this.cache.set(raw, hit);
    }
    return hit;
  }

  private compute(raw: string): string | null {
    const value = raw.indexOf('&') === -1 ? raw : decodeHTMLAttribute(raw);
    const abs = PLAIN_ABSOLUTE.exec(value);
    if (abs !== null && !DOT_SEGMENT.test(value)) return abs[1] === undefined ? `${value}/` : value;
    if (this.origin !== null && PLAIN_PATH.test(value) && !DOT_SEGMENT.test(value))
      return this.origin + value;
    if (this.page !== null && value.charCodeAt(0) === 35 && PLAIN_FRAGMENT.test(value))
      return this.page + value;
    const trimmed = value.trim();
    if (trimmed === '') return null;
    try {
      return new URL(trimmed, this.base ?? undefined).href;
    } catch {
      return null;
    }
  }
}

export function isHttp(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://');
}

/** The best candidate of a srcset: the largest width (`w`) or density (`x`) descriptor. */
export function bestSrcsetCandidate(srcset: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  // HTML's srcset grammar: a URL is a run of non-whitespace (commas inside it are fine unless trailing),
  // followed by optional descriptors up to the next comma.
  const n = srcset.length;
  let i = 0;
  while (i < n) {
    while (i < n && /[\s,]/.test(srcset[i])) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !/\s/.test(srcset[i])) i++;
    let url = srcset.slice(start, i);
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      const comma = srcset.indexOf(',', i);
      const end = comma === -1 ? n : comma;
      descriptor = srcset.slice(i, end).trim();
      i = end + 1;
    }
    if (url === '') continue;
    const d = descriptor.split(/\s+/)[0] || '1x';
    const value = parseFloat(d);
    const score = Number.isFinite(value) ? value * (d.endsWith('w') ? 1 : 1000) : 0;
    if (score > bestScore) {
      best = url;
      bestScore = score;
    }
  }
  return best;
}
