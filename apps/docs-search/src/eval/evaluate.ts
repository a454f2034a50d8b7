import type { Passage } from '../corpus/passage';

/**
 * What answers a question: a file (and optionally one heading of its trail), or one exact citation;
 * with `says`, only such passages whose text states it (compared in lower case, without markdown
 * marks): a line several passages share, such as an HTTP answer's meaning every API operation
 * lists, or one fact of a long section (a README table row) without its line numbers, which move
 * with every edit above it.
 */
export interface Expectation {
  source?: string;
  section?: string;
  ref?: string;
  says?: string;
}

export interface EvalQuestion {
  q: string;
  expect: Expectation[];
  /** Written by an author who had not seen the ranking or answer code; reported apart, never tuned on. */
  heldOut?: boolean;
  /**
   * Which set of questions written by another author: held out, none for the first (72-91) and
   * "B" (92-121); not held out, "C" and "D" (122-181, written at the same time as B, designed on).
   */
  set?: string;
}

/** The group a question is reported in: "designed", "design C", "held-out A"… */
export function questionGroup(q: EvalQuestion): string {
  if (q.heldOut) return `held-out ${q.set ?? 'A'}`;
  return q.set ? `design ${q.set}` : 'designed';
}

/**
 * Text as compared by `says`: lower case, without markdown emphasis and code marks (dropped, so
 * "(`billing.usage`) older" reads "(billing.usage) older", as the expectations quote it) and table
 * bars (a space: they separate cells).
 */
export function plain(text: string): string {
  return text.toLowerCase().replace(/[`*]/g, '').replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
}

/** A passage as judged: its body is needed only by expectations with `says`. */
export type Judged = Pick<Passage, 'source' | 'title' | 'ref'> & { body?: string };

export function matches(p: Judged, e: Expectation): boolean {
  if (e.says && !plain(p.body ?? '').includes(plain(e.says))) return false;
  if (e.ref) return p.ref === e.ref;
  if (e.source && p.source !== e.source) return false;
  if (!e.section) return true;
  const wanted = e.section.toLowerCase();
  return p.title.split(' › ').some((h) => h.toLowerCase() === wanted);
}

export function answersQuestion(p: Judged, q: EvalQuestion): boolean {
  return q.expect.some((e) => matches(p, e));
}

/** Share of questions with at least one expected passage among the first `k` retrieved. */
export function recallAt(k: number, runs: { question: EvalQuestion; retrieved: Passage[] }[]): number {
  if (!runs.length) return 0;
  return (
    runs.filter((r) => r.retrieved.slice(0, k).some((p) => answersQuestion(p, r.question))).length /
    runs.length
  );
}

/**
 * Citation precision: of all citations in the answers, the share that point at a passage the
 * question's expectations name (a citation of a non-retrieved passage counts as wrong).
 */
export function citationPrecision(runs: { question: EvalQuestion; cited: Judged[] }[]): number {
  const all = runs.flatMap((r) => r.cited.map((c) => answersQuestion(c, r.question)));
  return all.length ? all.filter(Boolean).length / all.length : 0;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
