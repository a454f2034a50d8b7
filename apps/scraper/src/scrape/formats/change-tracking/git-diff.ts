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
 * The unified diff from the previous markdown to the current one, as `git diff` prints it, and the
 * same diff parsed. Deterministic: the same two inputs always give the same output.
 */
export function gitDiff(previous: string, current: string): GitDiff {
  const text = createTwoFilesPatch('previous', 'current', withEol(previous), withEol(current), '', '', {
    context: CONTEXT_LINES,
  });
  return { text, json: { files: parseDiff(text) } };
}

/** Both sides end with a newline, so a changed last line is not reported as "no newline at end". */
function withEol(s: string): string {
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** Markdown compared for change: whitespace runs collapsed, so re-indentation alone is not a change. */
export function comparable(markdown: string): string {
  return markdown.replace(/\s+/g, ' ').trim();
}
