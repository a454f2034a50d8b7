import { RE2JS } from 're2js';

/** A compiled user pattern: only `test` is needed (crawl scope rules). */
export interface UserRegex {
  test(input: string): boolean;
}

/**
 * Compiles a regular expression written by a user (includePaths, excludePaths) with RE2's
 * algorithm (re2js, RE2 ported to JavaScript), whose matching time is linear in the input:
 * `(a+)+$` cannot freeze a crawler for every team as it does with JavaScript's backtracking
 * engine. RE2 has no backreferences or lookaround; such patterns are refused at validation with
 * RE2's reason. Throws for an invalid pattern. (Why not `re2`/`re2-wasm`: ADR 0010.)
 */
export function compileUserRegex(pattern: string): UserRegex {
  const re = RE2JS.compile(pattern);
  return { test: (input) => re.test(input) };
}

/** Null when `pattern` compiles with the linear-time engine, else why not (for a 400 message). */
export function userRegexProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return `Invalid or unsupported regular expression (RE2 syntax: no backreferences or lookaround): ${reason}`;
  }
}
