import { createTwoFilesPatch } from 'diff';
import parseDiff from 'parse-diff';

/** A unified diff and its parsed form (files → chunks → changes with line numbers). */
export interface GitDiff {
  text: string;
  json: { files: parseDiff.File[] };
}

/** Lines of context around each change in the unified diff (git's default). */
const CONTEXT_LINES = 3;

/**
 * Bounds of the search for the shortest diff (Myers: time grows with the lines times the edits).
 * Two long versions that share little would hold the replica's event loop for seconds to minutes
 * (two 8,000-line versions with nothing in common: 8 s; a 2 MB page's markdown has ~30,000 lines):
 * past these the diff replaces every line instead, found in one pass.
 */
export const DIFF_MAX_EDITS = 1000;
const DIFF_TIMEOUT_MS = 100;

const HEADER =
  '===================================================================\n--- previous\n+++ current\n';

/**
 * The unified diff from the previous markdown to the current one, as `git diff` prints it, and the
 * same diff parsed. Deterministic: the same two inputs always give the same output. When the
 * versions need more than DIFF_MAX_EDITS line edits (or the search takes longer than a tenth of a
 * second), the diff is one hunk that removes every previous line and adds every current one.
 */
export function gitDiff(previous: string, current: string): GitDiff {
  const text =
    createTwoFilesPatch('previous', 'current', withEol(previous), withEol(current), '', '', {
      context: CONTEXT_LINES,
      maxEditLength: DIFF_MAX_EDITS,
      timeout: DIFF_TIMEOUT_MS,
    }) ?? replaceAll(previous, current);
  return { text, json: { files: parseDiff(text) } };
}

/** The diff that replaces every line of `previous` with every line of `current`. */
function replaceAll(previous: string, current: string): string {
  const before = linesOf(previous);
  const after = linesOf(current);
  const range = (lines: string[]) => `${lines.length ? 1 : 0},${lines.length}`;
  const body = [...before.map((l) => `-${l}\n`), ...after.map((l) => `+${l}\n`)].join('');
  return `${HEADER}@@ -${range(before)} +${range(after)} @@\n${body}`;
}

/** The lines the diff compares (as `createTwoFilesPatch` sees them: an empty version is one empty line). */
function linesOf(s: string): string[] {
  return withEol(s).slice(0, -1).split('\n');
}

/** Both sides end with a newline, so a changed last line is not reported as "no newline at end". */
function withEol(s: string): string {
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** Markdown compared for change: whitespace runs collapsed, so re-indentation alone is not a change. */
export function comparable(markdown: string): string {
  return markdown.replace(/\s+/g, ' ').trim();
}
