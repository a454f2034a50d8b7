import { Child, El, F, newEl, rawAttr } from './node';
import { C, hasName, isAlpha, isWs, rawTextEnd } from './chars';
import { NameTable } from './intern';
import { KNOWN_ATTRIBUTES, KNOWN_TAGS, T, tagTraits } from './tags';

const TAG_NAMES = new NameTable(KNOWN_TAGS, tagTraits);
const ATTR_NAMES = new NameTable(KNOWN_ATTRIBUTES);

/** The tree plus the elements the metadata/links/images extractors need, gathered while parsing. */
export interface ParsedDocument {
  root: El;
  html: El | null;
  body: El | null;
  /** First `<title>` outside svg, raw. */
  title: El | null;
  metas: El[];
  /** `<link>` elements (favicon, canonical). */
  linkTags: El[];
  base: El | null;
  /** `<a>`/`<area>` elements with an href. */
  anchors: El[];
  /** `<img>` and `<source>` elements. */
  images: El[];
}

/**
 * Single-pass HTML tokenizer + forgiving tree builder (a pragmatic subset of the HTML5 algorithm:
 * void elements, implied end tags for p/li/dt/dd/tr/td/th/option, scoped end-tag matching). No DOM
 * library: this is the hot path of every scrape.
 */
export function parseHtml(src: string): ParsedDocument {
  const n = src.length;
  /** Attributes of the tag being read; copied out with an exact-size slice. */
  const scratch: string[] = [];
  const root = newEl('#root', null, null, 0, 0);
  const stack: El[] = [root];
  // Children of all open elements, contiguous per element (`starts[k]` for `stack[k]`); an element's
  // list is copied out at its exact size when it closes. Growing per-element arrays with push would
  // reserve 17 slots from the second child on, which dominated allocation on large pages.
  const pending: Child[] = [];
  /** Used length of `pending` (never shrinking the array itself, which V8 makes expensive). */
  let top = 0;
  const starts: number[] = [0];
  let cur = root;
  let idx = 1;
  let inLink = 0;
  let openP = 0;
  let inPre = 0;
  const doc: ParsedDocument = {
    root,
    html: null,
    body: null,
    title: null,
    metas: [],
    linkTags: [],
    base: null,
    anchors: [],
    images: [],
  };

  const pop = (): void => {
    const el = stack.pop() as El;
    const start = starts.pop() as number;
    if (top > start) {
      el.children = pending.slice(start, top);
      top = start;
    }
    const parent = stack[stack.length - 1];
    cur = parent;
    parent.textLen += el.textLen;
    parent.linkLen += el.linkLen;
    const f = el.flags;
    parent.flags |= (f & (F.HasBlock | F.HasTable | F.HasH1)) | (f & F.Block ? F.HasBlock : 0);
    if (el.traits & T.Track) {
      const t = el.tag;
      if (t === 'table') parent.flags |= F.HasTable;
      else if (t === 'h1') parent.flags |= F.HasH1;
      else if (t === 'a') inLink--;
      else if (t === 'p') openP--;
      else inPre--;
    }
  };
  const popThrough = (i: number): void => {
    while (stack.length > i) pop();
  };
  /** Index in the stack of the nearest `names` element, searching down to a `stopBits` element. */
  const findOpen = (names: readonly string[], stopBits: number, stopNames: readonly string[]): number => {
    for (let i = stack.length - 1; i > 0; i--) {
      const t = stack[i].tag;
      if (names.includes(t)) return i;
      if (stack[i].traits & stopBits || stopNames.includes(t)) return -1;
    }
    return -1;
  };
  const addText = (start: number, end: number): void => {
    let k = start;
    let newline = false;
    for (; k < end; k++) {
      const c = src.charCodeAt(k);
      if (!isWs(c)) break;
      if (c === 10) newline = true;
    }
    let s: string;
    if (k < end) {
      const len = end - start;
      cur.textLen += len;
      if (inLink > 0) cur.linkLen += len;
      s = src.slice(start, end);
    } else if (inPre === 0) {
      // Blank runs between tags only matter as "some whitespace" outside <pre>; sharing two constants
      // saves a substring per indentation run.
      s = newline ? '\n' : ' ';
    } else {
      s = src.slice(start, end);
    }
    const last = top - 1;
    if (last >= starts[starts.length - 1] && typeof pending[last] === 'string')
      pending[last] = (pending[last] as string) + s;
    else pending[top++] = s;
  };

  const startTag = (tag: string, traits: number, attrs: string[] | null): El | null => {
    if (traits & T.ClosesP && openP > 0) {
      const p = findOpen(P, T.Scope, BUTTON);
      if (p > 0) popThrough(p);
    }
    if (traits & T.Implies) {
      switch (tag) {
        case 'html':
          if (doc.html !== null) return null;
          break;
        case 'body':
          if (doc.body !== null) return null;
          break;
        case 'li': {
          const i = findOpen(LI, T.Special, NONE);
          if (i > 0) popThrough(i);
          break;
        }
        case 'dd':
        case 'dt': {
          const i = findOpen(DD_DT, T.Special, NONE);
          if (i > 0) popThrough(i);
          break;
        }
        case 'tr': {
          const i = findOpen(TR, 0, TABLE_OR_SECTION);
          if (i > 0) popThrough(i);
          break;
        }
        case 'td':
        case 'th': {
          const i = findOpen(CELLS, 0, ROW_TABLE);
          if (i > 0) popThrough(i);
          break;
        }
        case 'thead':
        case 'tbody':
        case 'tfoot': {
          const i = findOpen(SECTIONS, 0, TABLE);
          if (i > 0) popThrough(i);
          break;
        }
        case 'option':
        case 'optgroup':
          if (cur.tag === 'option') pop();
          break;
        case 'a': {
          // Nested links are not allowed: a new <a> closes the open one.
          const i = findOpen(A, T.Special, NONE);
          if (i > 0) popThrough(i);
          break;
        }
        case 'h1':
        case 'h2':
        case 'h3':
        case 'h4':
        case 'h5':
        case 'h6':
          if (/^h[1-6]$/.test(cur.tag)) pop();
          break;
      }
    }
    const el = newEl(tag, attrs, cur, idx++, traits);
    if (traits & T.Block) el.flags |= F.Block;
    pending[top++] = el;
    if (traits & T.Collect) {
      switch (tag) {
        case 'a':
        case 'area':
          if (attrs !== null && rawAttr(el, 'href') !== undefined) doc.anchors.push(el);
          break;
        case 'img':
        case 'source':
          doc.images.push(el);
          break;
        case 'meta':
          doc.metas.push(el);
          break;
        case 'link':
          doc.linkTags.push(el);
          break;
        case 'base':
          if (doc.base === null && rawAttr(el, 'href') !== undefined) doc.base = el;
          break;
        case 'html':
          doc.html = el;
          break;
        case 'body':
          doc.body = el;
          break;
      }
    }
    // Beyond MAX_DEPTH the element's content joins the deepest open element: keeps stack scans and the
    // recursive renderers bounded on hostile or broken markup (thousands of unclosed tags).
    if (traits & T.Void || stack.length >= MAX_DEPTH) return null;
    stack.push(el);
    starts.push(top);
    cur = el;
    if (traits & T.Track) {
      if (tag === 'a') inLink++;
      else if (tag === 'p') openP++;
      else if (tag !== 'table' && tag !== 'h1') inPre++;
    }
    return el;
  };

  const endTag = (tag: string, traits: number): void => {
    if (tag === 'br') {
      startTag('br', traits, null);
      return;
    }
    if (tag === 'body' || tag === 'html') return;
    for (let i = stack.length - 1; i > 0; i--) {
      if (stack[i].tag === tag) {
        popThrough(i);
        return;
      }
      const tt = stack[i].traits;
      // Block end tags may close through inline elements but not out of a table cell; inline end tags
      // never cross a block.
      if (traits & T.Special ? tt & T.Scope : tt & T.Special) return;
    }
  };

  let i = 0;
  while (i < n) {
    // Tags often follow one another directly: no search then.
    const lt = src.charCodeAt(i) === C.Lt ? i : src.indexOf('<', i);
    if (lt === -1) {
      addText(i, n);
      break;
    }
    if (lt > i) addText(i, lt);
    const c = src.charCodeAt(lt + 1);
    if (isAlpha(c)) {
      // Start tag.
      let j = lt + 2;
      let h = c | 0x20;
      while (j < n) {
        const d = src.charCodeAt(j);
        if (d <= 32 || d === C.Gt || d === C.Slash) break;
        h = (Math.imul(h, 31) + (d | 0x20)) | 0;
        j++;
      }
      const tag = TAG_NAMES.get(src, lt + 1, j, h);
      const traits = TAG_NAMES.value;
      let attrCount = 0;
      let selfClosing = false;
      // Attributes.
      for (;;) {
        while (j < n && isWs(src.charCodeAt(j))) j++;
        if (j >= n) break;
        const d = src.charCodeAt(j);
        if (d === C.Gt) {
          j++;
          break;
        }
        if (d === C.Slash) {
          j++;
          if (src.charCodeAt(j) === C.Gt) {
            selfClosing = true;
            j++;
            break;
          }
          continue;
        }
        const ns = j;
        let ah = d | 0x20;
        j++;
        while (j < n) {
          const e = src.charCodeAt(j);
          if (e <= 32 || e === C.Eq || e === C.Gt || e === C.Slash) break;
          ah = (Math.imul(ah, 31) + (e | 0x20)) | 0;
          j++;
        }
        const name = ATTR_NAMES.get(src, ns, j, ah);
        while (j < n && isWs(src.charCodeAt(j))) j++;
        let value = '';
        if (src.charCodeAt(j) === C.Eq) {
          j++;
          while (j < n && isWs(src.charCodeAt(j))) j++;
          const q = src.charCodeAt(j);
          if (q === C.Dq || q === C.Sq) {
            const end = src.indexOf(q === C.Dq ? '"' : "'", j + 1);
            const stop = end === -1 ? n : end;
            value = src.slice(j + 1, stop);
            j = stop + 1;
          } else {
            const vs = j;
            while (j < n) {
              const e = src.charCodeAt(j);
              if (isWs(e) || e === C.Gt) break;
              j++;
            }
            value = src.slice(vs, j);
          }
        }
        if (!hasName(scratch, attrCount, name)) {
          scratch[attrCount++] = name;
          scratch[attrCount++] = value;
        }
      }
      i = j;
      const attrs = attrCount === 0 ? null : scratch.slice(0, attrCount);
      if (traits & T.Skip) {
        if (!selfClosing)
          i = rawTextEnd(src, i, tag, tag === 'svg' || tag === 'math' || tag === 'template')[1];
        continue;
      }
      const el = startTag(tag, traits, attrs);
      if (el !== null && traits & T.RawText) {
        const [close, next] = rawTextEnd(src, i, tag, false);
        if (close > i) addText(i, close);
        if (tag === 'title' && doc.title === null) doc.title = el;
        pop();
        i = next;
      }
    } else if (c === C.Slash) {
      const c2 = src.charCodeAt(lt + 2);
      let gt: number;
      if (isAlpha(c2)) {
        let j = lt + 3;
        let h = c2 | 0x20;
        while (j < n) {
          const d = src.charCodeAt(j);
          if (d <= 32 || d === C.Slash || d === C.Gt) break;
          h = (Math.imul(h, 31) + (d | 0x20)) | 0;
          j++;
        }
        // Mostly `</name>`: the name ends at the `>` and no search is needed.
        gt = src.charCodeAt(j) === C.Gt ? j : src.indexOf('>', j);
        endTag(TAG_NAMES.get(src, lt + 2, j, h), TAG_NAMES.value);
      } else {
        gt = src.indexOf('>', lt + 2);
      }
      i = gt === -1 ? n + 1 : gt + 1;
    } else if (c === C.Bang) {
      if (src.charCodeAt(lt + 2) === C.Dash && src.charCodeAt(lt + 3) === C.Dash) {
        const end = src.indexOf('-->', lt + 4);
        i = end === -1 ? n : end + 3;
        // `<!-->` and `<!--->` are complete (empty) comments.
        if (src.charCodeAt(lt + 4) === C.Gt) i = lt + 5;
        else if (src.charCodeAt(lt + 4) === C.Dash && src.charCodeAt(lt + 5) === C.Gt) i = lt + 6;
      } else {
        const gt = src.indexOf('>', lt + 2);
        i = gt === -1 ? n : gt + 1;
      }
    } else if (c === C.Question) {
      const gt = src.indexOf('>', lt + 2);
      i = gt === -1 ? n : gt + 1;
    } else {
      addText(lt, lt + 1);
      i = lt + 1;
    }
  }
  while (stack.length > 1) pop();
  if (top > 0) root.children = pending.slice(0, top);
  return doc;
}

const MAX_DEPTH = 400;
const P = ['p'];
const BUTTON = ['button'];
const NONE: string[] = [];
const LI = ['li'];
const DD_DT = ['dd', 'dt'];
const TR = ['tr'];
const SECTIONS = ['thead', 'tbody', 'tfoot'];
const CELLS = ['td', 'th'];
const ROW_TABLE = ['tr', 'table'];
const TABLE = ['table'];
const TABLE_OR_SECTION = ['table', 'thead', 'tbody', 'tfoot'];
const A = ['a'];
