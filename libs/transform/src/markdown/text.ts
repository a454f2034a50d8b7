/** Hard line break placeholder inside inline buffers (resolved when a paragraph is flushed). */
export const BR = '\u0001';

const WS = /[ \t\n\r\f\u00a0]+/g;
const NEEDS_ESCAPE = /[\\*_`[\]<]/;
const ESCAPE = /\\(?=[!-/:-@[-`{-~])|[*`[\]]|_|<(?=[A-Za-z/!?])/g;
const WORD = /[A-Za-z0-9]/;

export function collapseWs(s: string): string {
  return s.replace(WS, ' ');
}

// Per-char class for the text fast path: 1 = whitespace, 2 = may need a markdown escape.
const CLASS = new Uint8Array(256);
for (const c of [9, 10, 12, 13, 32, 160]) CLASS[c] = 1;
for (const ch of '\\*_`[]<') CLASS[ch.charCodeAt(0)] = 2;

function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122);
}

function isPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/**
 * Running text for markdown in one pass: whitespace runs collapsed to one space and markdown syntax
 * characters escaped. Returns the input string itself when nothing changes (the common case).
 */
export function inlineText(s: string): string {
  const n = s.length;
  let out = '';
  let from = 0;
  let changed = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const k = c < 256 ? CLASS[c] : 0;
    if (k === 0) continue;
    if (k === 1) {
      if (c === 32 && (i + 1 >= n || (s.charCodeAt(i + 1) < 256 ? CLASS[s.charCodeAt(i + 1)] : 0) !== 1)) continue;
      let j = i + 1;
      while (j < n && s.charCodeAt(j) < 256 && CLASS[s.charCodeAt(j)] === 1) j++;
      out += `${s.slice(from, i)} `;
      changed = true;
      from = j;
      i = j - 1;
      continue;
    }
    let esc: boolean;
    if (c === 95) esc = !(i > 0 && isWordCode(s.charCodeAt(i - 1)) && isWordCode(s.charCodeAt(i + 1)));
    else if (c === 92) esc = i + 1 < n && isPunct(s.charCodeAt(i + 1));
    else if (c === 60) {
      const d = s.charCodeAt(i + 1);
      esc = (d | 0x20) >= 97 && (d | 0x20) <= 122 ? true : d === 47 || d === 33 || d === 63;
    } else esc = true;
    if (esc) {
      out += `${s.slice(from, i)}\\`;
      changed = true;
      from = i;
    }
  }
  return changed ? out + s.slice(from) : s;
}

/** Escapes characters that would otherwise start markdown syntax inside running text. */
export function escapeInline(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(ESCAPE, (m: string, at: number) => {
    // Intraword underscores (snake_case) never form emphasis, so they stay readable.
    if (m === '_' && at > 0 && WORD.test(s[at - 1]) && WORD.test(s[at + 1] ?? '')) return m;
    return `\\${m}`;
  });
}

const LINE_START = /^(?:#{1,6}(?=\s|$)|>|[-+](?=\s)|(\d+)([.)])(?=\s)|={3,}\s*$)/;

/** Escapes a paragraph start that would be read as a heading, quote, list item or setext underline. */
export function escapeLineStart(s: string): string {
  const m = LINE_START.exec(s);
  if (m === null) return s;
  if (m[1] !== undefined) return `${m[1]}\\${s.slice(m[1].length)}`;
  return `\\${s}`;
}

/** Joins an inline buffer into one paragraph: single spaces, `<br>` as hard breaks, two `<br>` as a paragraph break. */
export function finishInline(parts: string[]): string {
  let s = parts.join('');
  if (s.indexOf('  ') !== -1) s = s.replace(/ {2,}/g, ' ');
  if (s.indexOf(BR) !== -1) {
    s = s
      .replace(/ *\u0001 */g, BR)
      .replace(/^\u0001+|\u0001+$/g, '')
      .replace(/\u0001{2,}/g, '\n\n')
      .replace(/\u0001/g, '  \n');
  }
  return s.trim();
}

/** Inline content for one-line contexts (headings, link text, table cells). */
export function flattenInline(parts: string[]): string {
  let s = parts.join('');
  if (s.indexOf(BR) !== -1 || s.indexOf('\n') !== -1) s = s.replace(/[\u0001\n]+/g, ' ');
  if (s.indexOf('  ') !== -1) s = s.replace(/ {2,}/g, ' ');
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

export function mdTitle(title: string | undefined): string {
  if (title === undefined) return '';
  const t = collapseWs(title).trim();
  return t === '' ? '' : ` "${t.replace(/["\\]/g, '\\$&')}"`;
}
