import { decodeHTMLAttribute } from 'entities';

// Characters that URL parsing would leave untouched: such absolute http(s) URLs are returned as is,
// which skips the WHATWG parser for the common case (it dominates link-heavy pages otherwise).
const PLAIN_ABSOLUTE = /^https?:\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)+(\/[A-Za-z0-9\-._~:/?#@!$&()*+,;=%]*)?$/;
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~:/?#@!$&()*+,;=%]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

/** Resolves raw (entity-encoded) attribute URLs against the document base, with a per-page cache. */
export class UrlResolver {
  private readonly cache = new Map<string, string | null>();
  private readonly base: URL | null;
  private readonly origin: string | null;

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
  // Candidates are separated by commas that follow a URL and descriptor; URLs themselves may contain commas.
  for (const part of srcset.split(/,\s+|,(?=\S+\s+\d)/)) {
    const bits = part.trim().split(/\s+/);
    const url = bits[0];
    if (!url) continue;
    const d = bits[1] ?? '1x';
    const score = parseFloat(d) * (d.endsWith('w') ? 1 : 1000);
    if (Number.isFinite(score) ? score > bestScore : best === undefined) {
      best = url;
      bestScore = Number.isFinite(score) ? score : bestScore;
    }
  }
  return best;
}
