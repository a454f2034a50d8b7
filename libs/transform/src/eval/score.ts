/**
 * Scoring of extracted text the way the Article Extraction Benchmark does it (token 4-shingles of the
 * expected text against the predicted text; per-page precision/recall normalised, then averaged), and
 * markdown made plain for it. Used by the main-content benchmark and the held-out page tests; not part
 * of the transform pipeline.
 */

const TOKEN = /[\p{L}\p{N}_\p{M}]+/gu;
const IMAGE = /!\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g;
const LINK = /\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)/g;

/**
 * Markdown -> plain text: link targets, image references, heading/list/quote/emphasis marks, table
 * pipes and separator rows, code fences and backslash escapes are taken out, so that neither URLs nor
 * markup count for or against a system.
 */
export function markdownToPlain(md: string): string {
  const out: string[] = [];
  for (const raw of md.split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) continue;
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(raw)) continue;
    if (/^\s*([-*_]\s*){3,}$/.test(raw)) continue;
    const line = raw
      .replace(IMAGE, '')
      .replace(LINK, '$1')
      .replace(/^\s*#{1,6}\s+/, '')
      .replace(/^(\s*>)+\s?/, '')
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '')
      .replace(/^\s*:\s+/, '')
      .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(^|[^\w*\\])[*_](?=\S)([^*_]*?\S)[*_](?!\w)/g, '$1$2')
      .replace(/`+/g, '')
      .replace(/\s*\|\s*/g, ' ')
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>~=])/g, '$1');
    out.push(line.trim());
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function shingles(text: string, n = 4): Map<string, number> {
  const tokens = text.match(TOKEN) ?? [];
  const out = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const s = tokens.slice(i, i + n);
    if (s.length === 0) continue;
    const key = s.join('\u0001');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** True/false positives and false negatives of shingles, normalised to sum 1 (as evaluate.py does). */
export type Counts = [tp: number, fp: number, fn: number];

export function matchCounts(expected: string, predicted: string): Counts {
  const t = shingles(expected);
  const p = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, tc] of t) {
    const pc = p.get(k) ?? 0;
    tp += Math.min(tc, pc);
    fn += Math.max(0, tc - pc);
  }
  for (const [k, pc] of p) fp += Math.max(0, pc - (t.get(k) ?? 0));
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}

export function precision([tp, fp, fn]: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

export function recall([tp, fp, fn]: Counts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

export interface Scores {
  f1: number;
  precision: number;
  recall: number;
}

/** Mean precision and recall over pages and the F1 of the means, as the benchmark reports them. */
export function aggregate(counts: readonly Counts[]): Scores {
  const ps = counts.filter(([tp, fp]) => tp + fp > 0).map(precision);
  const rs = counts.filter(([tp, , fn]) => tp + fn > 0).map(recall);
  const p = ps.reduce((a, b) => a + b, 0) / Math.max(1, ps.length);
  const r = rs.reduce((a, b) => a + b, 0) / Math.max(1, rs.length);
  return { f1: p + r > 0 ? (2 * p * r) / (p + r) : 0, precision: p, recall: r };
}
