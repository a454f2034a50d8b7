import type { AgentStep } from '@wds/contracts';

/**
 * The page as the model sees it: Playwright's AI accessibility snapshot (`page.ariaSnapshot({mode:
 * 'ai'})`: roles, names, `[ref=e12]` handles) plus the step log and the notes read so far, all in
 * the data block the LLM port delimits (everything in it came from the page).
 */

const REF_IN_LINE = /\[ref=((?:f\d+)?e\d+)\]/g;

/** The refs a snapshot offers (the only element handles the agent may act on). */
export function refsOf(snapshot: string): Set<string> {
  const out = new Set<string>();
  for (const m of snapshot.matchAll(REF_IN_LINE)) out.add(m[1]);
  return out;
}

/** A short description of the element behind a ref (`button "Send"`), for the step log. */
export function describeRef(snapshot: string, ref: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(`[ref=${ref}]`));
  if (!line) return ref;
  const text = line
    .replace(/^\s*-\s*/, '')
    .replace(/\s*\[[^\]]*\]/g, '')
    .replace(/:\s*$/, '')
    .trim();
  return `${ref} ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`.trim();
}

/**
 * Cuts a snapshot to `maxChars` at a line break, saying how much was left out. Interactive lines
 * (those with a ref) are kept before plain text lines when the page is too long to show whole.
 */
export function fitSnapshot(snapshot: string, maxChars: number): { text: string; cut: boolean } {
  if (snapshot.length <= maxChars) return { text: snapshot, cut: false };
  const lines = snapshot.split('\n');
  const keep = new Array<boolean>(lines.length).fill(false);
  let used = 0;
  const take = (pred: (l: string) => boolean) => {
    for (let i = 0; i < lines.length; i++) {
      if (keep[i] || !pred(lines[i])) continue;
      const cost = lines[i].length + 1;
      if (used + cost > maxChars - 60) continue;
      keep[i] = true;
      used += cost;
    }
  };
  take((l) => l.includes('[ref='));
  take(() => true);
  const kept = lines.filter((_, i) => keep[i]);
  const dropped = lines.length - kept.length;
  return { text: `${kept.join('\n')}\n[${dropped} lines of the page not shown]`, cut: true };
}

/** One line per step for the model: what was done and what came of it. */
export function stepLine(s: AgentStep): string {
  const parts = [`${s.step}. ${s.action}`];
  if (s.target) parts.push(s.target);
  if (s.value !== undefined) parts.push(JSON.stringify(s.value.slice(0, 100)));
  parts.push(`→ ${s.outcome}`);
  if (s.detail) parts.push(`(${s.detail.slice(0, 200)})`);
  return parts.join(' ');
}

export interface Observation {
  url: string;
  title: string;
  snapshot: string;
  steps: readonly AgentStep[];
  /** Text read by extract steps (most recent last). */
  notes: readonly string[];
  /** Other start pages the caller named. */
  startUrls: readonly string[];
}

/**
 * Sizes of the observation's parts (characters). The snapshot is capped whatever the context
 * holds: prompt tokens are most of a step's latency on a small local model (interactive lines are
 * kept first when a page is longer).
 */
export const OBSERVATION_LIMITS = { steps: 12, notesChars: 3000, snapshotChars: 6000 } as const;

/**
 * The data block of one step within `budgetChars`, in the order that changes least from step to
 * step (the model server reuses the longest unchanged prefix): the start pages, the step log (it
 * only grows), the text read, then the page now (URL, title, snapshot — the part cut to fit).
 */
export function renderObservation(
  o: Observation,
  budgetChars: number,
  snapshotChars: number = OBSERVATION_LIMITS.snapshotChars,
): { text: string; cut: boolean } {
  const head: string[] = [];
  if (o.startUrls.length > 1) head.push(`Start pages: ${o.startUrls.join(' ')}`);
  const recent = o.steps.slice(-OBSERVATION_LIMITS.steps);
  head.push(
    recent.length
      ? `Steps so far:\n${recent.map(stepLine).join('\n')}`
      : 'Steps so far: none',
  );
  if (o.notes.length) {
    let notes = o.notes.join('\n---\n');
    if (notes.length > OBSERVATION_LIMITS.notesChars)
      notes = `…${notes.slice(-OBSERVATION_LIMITS.notesChars)}`;
    head.push(`Text read so far:\n${notes}`);
  }
  head.push(`URL: ${o.url}`, `Title: ${o.title.slice(0, 200)}`);
  const top = `${head.join('\n')}\nAccessibility snapshot:\n`;
  const room = Math.min(snapshotChars, Math.max(300, budgetChars - top.length));
  const fitted = fitSnapshot(o.snapshot, room);
  return { text: top + fitted.text, cut: fitted.cut };
}
