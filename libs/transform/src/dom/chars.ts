/** Character-level helpers of the tokenizer. */

export const enum C {
  Lt = 60,
  Gt = 62,
  Slash = 47,
  Bang = 33,
  Question = 63,
  Eq = 61,
  Dq = 34,
  Sq = 39,
  Dash = 45,
}

export function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 12;
}

export function isAlpha(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

export function hasName(attrs: string[], count: number, name: string): boolean {
  for (let k = 0; k < count; k += 2) if (attrs[k] === name) return true;
  return false;
}

/**
 * indexOf of `<tag` / `</tag` (needle lower-case) matching the tag name case-insensitively, for
 * matches starting before `limit`.
 */
export function indexOfCi(hay: string, needle: string, from: number, limit: number): number {
  const prefix = needle.charCodeAt(1) === C.Slash ? '</' : '<';
  const first = prefix.length;
  let pos = from;
  for (;;) {
    const at = hay.indexOf(prefix, pos);
    if (at === -1 || at >= limit) return -1;
    let k = first;
    while (k < needle.length && (hay.charCodeAt(at + k) | 0x20) === needle.charCodeAt(k)) k++;
    if (k === needle.length) return at;
    pos = at + 1;
  }
}

/**
 * [start of `</tag`, index just past its `>`] for a raw-text or skipped element starting at `from`,
 * or [length, length]. With `nested`, same-name elements inside are counted (svg in svg).
 */
export function rawTextEnd(src: string, from: number, tag: string, nested: boolean): [number, number] {
  let depth = 0;
  let pos = from;
  for (;;) {
    const close = indexOfCi(src, `</${tag}`, pos, src.length);
    if (close === -1) return [src.length, src.length];
    const after = src.charCodeAt(close + 2 + tag.length);
    if (!(isWs(after) || after === C.Gt || after === C.Slash || Number.isNaN(after))) {
      pos = close + 2;
      continue;
    }
    if (nested) {
      let open = indexOfCi(src, `<${tag}`, pos, close);
      while (open !== -1) {
        depth++;
        open = indexOfCi(src, `<${tag}`, open + 1, close);
      }
      pos = close + 2;
      if (depth > 0) {
        depth--;
        continue;
      }
    }
    const gt = src.indexOf('>', close);
    return [close, gt === -1 ? src.length : gt + 1];
  }
}
