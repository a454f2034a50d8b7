import { decodeHTML } from 'entities';

/** Hard line break placeholder inside inline buffers (resolved when a paragraph is flushed). */
export const BR = '\u0001';

const WS = /[ \t\n\r\f\u00a0]+/g;
/** Whitespace that collapsing would change: a run of two or more, or anything but a plain space. */
const WS_CHANGE = /[\t\n\r\f\u00a0]| {2}/;
const NEEDS_ESCAPE = /[\\*_`[\]<]/;

export function collapseWs(s: string): string {
  // Most attribute values (titles, alt texts) need no change: one scan, no new string.
  return WS_CHANGE.test(s) ? s.replace(WS, ' ') : s;
}

// Regex scans are the fastest primitive V8 offers for this (native code, no per-char JS loop):
// one test decides the common case where a text node needs no change at all. A double space counts
// as work too, so that no text part ever holds one (the paragraph check then only looks at the
// boundaries between parts).
const NEEDS_WORK = /[\t\n\r\f\u00a0\\*_`[\]<&]| {2}/;
const WS_TO_FIX = /[ \t\n\r\f\u00a0]{2,}|[\t\n\r\f\u00a0]/g;
const ESCAPE_PLAIN = /[*`[\]]|<(?=[A-Za-z/!?])|\\(?=[!-/:-@[-`{-~])/g;
const ESCAPE_UNDERSCORE = /_(?![A-Za-z0-9])|(?<![A-Za-z0-9])_/g;

/**
 * Raw (entity-encoded) text to markdown: entities decoded, whitespace runs collapsed to one space,
 * markdown syntax escaped. The result never contains two spaces in a row.
 */
export function inlineText(raw: string): string {
  if (!NEEDS_WORK.test(raw)) return raw;
  const s = raw.indexOf('&') === -1 ? raw : decodeHTML(raw);
  let t = s.replace(WS_TO_FIX, ' ');
  if (NEEDS_ESCAPE.test(t)) {
    t = t.replace(ESCAPE_PLAIN, '\\$&');
    if (t.indexOf('_') !== -1) t = t.replace(ESCAPE_UNDERSCORE, '\\_');
  }
  return t;
}

/** Escapes characters that would otherwise start markdown syntax inside running text. */
export function escapeInline(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  const t = s.replace(ESCAPE_PLAIN, '\\$&');
  // Intraword underscores (snake_case) never form emphasis, so they stay readable.
  return t.indexOf('_') === -1 ? t : t.replace(ESCAPE_UNDERSCORE, '\\_');
}

export const DOUBLE_SPACE = / {2}/;

const LINE_START = /^(?:#{1,6}(?=\s|$)|>|[-+](?=\s)|(\d+)([.)])(?=\s)|={3,}\s*$)/;

/** Escapes a paragraph start that would be read as a heading, quote, list item or setext underline. */
export function escapeLineStart(s: string): string {
  const c = s.charCodeAt(0);
  // Only these can start block syntax: # > - + = and digits.
  if (!(c === 35 || c === 62 || c === 45 || c === 43 || c === 61 || (c >= 48 && c <= 57))) return s;
  const m = LINE_START.exec(s);
  if (m === null) return s;
  if (m[1] !== undefined) return `${m[1]}\\${s.slice(m[1].length)}`;
  return `\\${s}`;
}

/**
 * How the paragraph in `parts[from..]` must be finished: 0 when every part is empty, 1 when its joined
 * text is already final (what {@link finishInline} and {@link escapeLineStart} would return unchanged:
 * no double space, no leading or trailing space or newline, no block-syntax first character), else 2.
 * Only the parts' ends are read: a double space inside a part (none in text parts, see
 * {@link inlineText}) and `<br>` markers are flagged by the caller ({@link Sink}).
 */
export function plainParagraph(parts: readonly string[], from: number): 0 | 1 | 2 {
  let first = -1;
  let lastCode = -1;
  for (let i = from; i < parts.length; i++) {
    const p = parts[i];
    const n = p.length;
    if (n === 0) continue;
    const c = p.charCodeAt(0);
    if (first === -1) {
      first = i;
      if (
        c === 32 ||
        c === 10 ||
        c === 35 ||
        c === 62 ||
        c === 45 ||
        c === 43 ||
        c === 61 ||
        (c >= 48 && c <= 57)
      )
        return 2;
    } else if (c === 32 && lastCode === 32) {
      return 2;
    }
    lastCode = p.charCodeAt(n - 1);
  }
  if (first === -1) return 0;
  return lastCode === 32 || lastCode === 10 ? 2 : 1;
}

/** Joins an inline buffer into one paragraph: single spaces, `<br>` as hard breaks, two `<br>` as a paragraph break. */
export function finishInline(parts: string[], hasBr: boolean): string {
  let s = parts.length === 1 ? parts[0] : parts.join('');
  // A regex literal search beats indexOf for this needle on two-byte strings.
  if (DOUBLE_SPACE.test(s)) s = s.replace(/ {2,}/g, ' ');
  if (hasBr) {
    s = s
      .replace(/ *\u0001 */g, BR)
      .replace(/^\u0001+|\u0001+$/g, '')
      .replace(/\u0001{2,}/g, '\n\n')
      .replace(/\u0001/g, '  \n');
  }
  const first = s.charCodeAt(0);
  const last = s.charCodeAt(s.length - 1);
  return first === 32 || last === 32 || first === 10 || last === 10 ? s.trim() : s;
}

/** Inline content for one-line contexts (headings, link text, table cells). */
export function flattenInline(joined: string): string {
  let s = joined;
  if (s.indexOf(BR) !== -1 || s.indexOf('\n') !== -1) s = s.replace(/[\u0001\n]+/g, ' ');
  if (DOUBLE_SPACE.test(s)) s = s.replace(/ {2,}/g, ' ');
  return s.trim();
}

/** A code span whose delimiter is longer than any backtick run inside it. */
export function codeSpan(text: string): string {
  const s = collapseWs(text).trim();
  if (s === '') return '';
  if (s.indexOf('`') === -1) return `\`${s}\``;
  let longest = 0;
  for (const run of s.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** Link/image destination; unbalanced parentheses or spaces would end it early. */
export function mdUrl(url: string): string {
  if (url.indexOf(' ') !== -1) return `<${url.replace(/[<>]/g, encodeURIComponent)}>`;
  if (url.indexOf('(') === -1 && url.indexOf(')') === -1) return url;
  let depth = 0;
  for (const ch of url) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) break;
  }
  return depth === 0 ? url : url.replace(/[()]/g, '\\$&');
}

const TITLE_ESCAPE = /["\\]/;
const TITLE_ESCAPE_ALL = /["\\]/g;

export function mdTitle(title: string | undefined): string {
  if (title === undefined) return '';
  const t = collapseWs(title).trim();
  if (t === '') return '';
  return ` "${TITLE_ESCAPE.test(t) ? t.replace(TITLE_ESCAPE_ALL, '\\$&') : t}"`;
}
