'use strict';
// The Article Extraction Benchmark's scoring, in JS, for quick per-page diagnostics and the held-out
// check: token 4-shingles of expected vs predicted text -> precision/recall/F1 per page (normalised),
// averaged over pages. evaluate.py stays the reference for published figures.

const TOKEN = /[\p{L}\p{N}_\p{M}]+/gu;

function shingles(text, n = 4) {
  const tokens = (text || '').match(TOKEN) || [];
  const out = new Map();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const s = tokens.slice(i, i + n);
    if (s.length === 0) continue;
    const key = s.join('\u0001');
    out.set(key, (out.get(key) || 0) + 1);
  }
  return out;
}

/** [tp, fp, fn], normalised to sum 1 (as evaluate.py does). */
function matchCounts(truth, pred) {
  const t = shingles(truth);
  const p = shingles(pred);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, tc] of t) {
    const pc = p.get(k) || 0;
    tp += Math.min(tc, pc);
    fn += Math.max(0, tc - pc);
  }
  for (const [k, pc] of p) fp += Math.max(0, pc - (t.get(k) || 0));
  const s = tp + fp + fn;
  return s > 0 ? [tp / s, fp / s, fn / s] : [0, 0, 0];
}

function precision([tp, fp, fn]) {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

function recall([tp, fp, fn]) {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

/** Mean precision/recall over pages and F1 of the means, as the benchmark reports them. */
function aggregate(counts) {
  const ps = counts.filter(([tp, fp]) => tp + fp > 0).map(precision);
  const rs = counts.filter(([tp, , fn]) => tp + fn > 0).map(recall);
  const p = ps.reduce((a, b) => a + b, 0) / Math.max(1, ps.length);
  const r = rs.reduce((a, b) => a + b, 0) / Math.max(1, rs.length);
  return { f1: p + r > 0 ? (2 * p * r) / (p + r) : 0, precision: p, recall: r };
}

module.exports = { matchCounts, precision, recall, aggregate };
