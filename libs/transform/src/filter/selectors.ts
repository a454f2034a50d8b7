import { attr, El, F } from '../dom/node';

/** Thrown for an includeTags/excludeTags entry that is not a supported CSS selector. */
export class InvalidSelectorError extends Error {
  constructor(readonly selector: string) {
    super(`Unsupported CSS selector: ${JSON.stringify(selector)}`);
    this.name = 'InvalidSelectorError';
  }
}

interface AttrTest {
  name: string;
  op: '' | '=' | '~=' | '^=' | '$=' | '*=' | '|=';
  value: string;
}

interface Compound {
  tag: string | null;
  id: string | null;
  classes: string[];
  attrs: AttrTest[];
  /** How this compound relates to the one on its left. */
  combinator: ' ' | '>';
}

/** A complex selector stored right-to-left. */
type Complex = Compound[];

const TOKEN =
  /\s*(>)\s*|\s+|([a-zA-Z][\w-]*|\*)|#([\w-]+)|\.([\w-]+)|\[\s*([\w:-]+)\s*(?:([~^$*|]?=)\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+))\s*)?\]/y;

function parseComplex(sel: string): Complex {
  const src = sel.trim();
  if (src === '') throw new InvalidSelectorError(sel);
  const out: Compound[] = [];
  let current: Compound | null = null;
  let pending: ' ' | '>' = ' ';
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (m === null || m.index !== start) throw new InvalidSelectorError(sel);
    const [text, child, tag, id, cls, attrName, op, dq, sq, bare] = m;
    if (child !== undefined) {
      if (current === null) throw new InvalidSelectorError(sel);
      out.push(current);
      current = null;
      pending = '>';
      continue;
    }
    if (text.trim() === '') {
      if (current !== null) out.push(current);
      current = null;
      continue;
    }
    if (current === null) {
      current = { tag: null, id: null, classes: [], attrs: [], combinator: pending };
      pending = ' ';
    }
    if (tag !== undefined) {
      if (current.tag !== null || current.id !== null || current.classes.length || current.attrs.length)
        throw new InvalidSelectorError(sel);
      current.tag = tag === '*' ? null : tag.toLowerCase();
    } else if (id !== undefined) current.id = id;
    else if (cls !== undefined) current.classes.push(cls);
    else if (attrName !== undefined)
      current.attrs.push({
        name: attrName.toLowerCase(),
        op: (op ?? '') as AttrTest['op'],
        value: dq ?? sq ?? bare ?? '',
      });
  }
  if (current === null) throw new InvalidSelectorError(sel);
  out.push(current);
  return out.reverse();
}

/** Parses selectors such as `article`, `.content`, `#main`, `div.post > p`, `a[href^="/docs"]`, `nav, footer`. */
export function parseSelectors(selectors: readonly string[]): Complex[] {
  const out: Complex[] = [];
  for (const s of selectors) for (const part of s.split(',')) out.push(parseComplex(part));
  return out;
}

function hasClass(el: El, cls: string): boolean {
  const v = attr(el, 'class');
  if (v === undefined) return false;
  let from = 0;
  for (;;) {
    const at = v.indexOf(cls, from);
    if (at === -1) return false;
    const end = at + cls.length;
    if ((at === 0 || /\s/.test(v[at - 1])) && (end === v.length || /\s/.test(v[end]))) return true;
    from = at + 1;
  }
}

function matchAttr(el: El, t: AttrTest): boolean {
  const v = attr(el, t.name);
  if (v === undefined) return false;
  switch (t.op) {
    case '':
      return true;
    case '=':
      return v === t.value;
    case '~=':
      return v.split(/\s+/).includes(t.value);
    case '^=':
      return t.value !== '' && v.startsWith(t.value);
    case '$=':
      return t.value !== '' && v.endsWith(t.value);
    case '*=':
      return t.value !== '' && v.includes(t.value);
    case '|=':
      return v === t.value || v.startsWith(`${t.value}-`);
  }
}

function matchCompound(el: El, c: Compound): boolean {
  if (c.tag !== null && el.tag !== c.tag) return false;
  if (c.id !== null && attr(el, 'id') !== c.id) return false;
  for (const cls of c.classes) if (!hasClass(el, cls)) return false;
  for (const a of c.attrs) if (!matchAttr(el, a)) return false;
  return true;
}

function matchFrom(el: El, sel: Complex, i: number): boolean {
  if (!matchCompound(el, sel[i])) return false;
  if (i === sel.length - 1) return true;
  const comb = sel[i].combinator;
  for (let p = el.parent; p !== null && p.tag !== '#root'; p = p.parent) {
    if (matchFrom(p, sel, i + 1)) return true;
    if (comb === '>') return false;
  }
  return false;
}

export function matches(el: El, sels: readonly Complex[]): boolean {
  for (const s of sels) if (matchFrom(el, s, 0)) return true;
  return false;
}

/** Outermost matching elements under `root`, in document order (for includeTags). */
export function selectOutermost(root: El, sels: readonly Complex[]): El[] {
  const out: El[] = [];
  const visit = (el: El): void => {
    for (const c of el.children) {
      if (typeof c === 'string') continue;
      if (matches(c, sels)) out.push(c);
      else visit(c);
    }
  };
  visit(root);
  return out;
}

/** Marks every matching element under the roots as removed (for excludeTags). */
export function removeMatching(roots: readonly El[], sels: readonly Complex[]): void {
  const visit = (el: El): void => {
    for (const c of el.children) {
      if (typeof c === 'string' || c.flags & F.Removed) continue;
      if (matches(c, sels)) c.flags |= F.Removed;
      else visit(c);
    }
  };
  for (const r of roots) visit(r);
}

/**
 * Null when every comma-separated part of `selector` is supported here (what includeTags/excludeTags
 * accept), else the reason; lets request validation refuse a bad selector before any fetch.
 */
export function selectorProblem(selector: string): string | null {
  try {
    parseSelectors([selector]);
    return null;
  } catch (err) {
    if (err instanceof InvalidSelectorError) return err.message;
    throw err;
  }
}
