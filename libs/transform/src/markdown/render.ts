import { attr, decodeText, El, F, hasAttr, rawAttr } from '../dom/node';
import { K, KIND_SHIFT, T } from '../dom/tags';
import { bestSrcsetCandidate, UrlResolver } from '../urls';
import { Sink } from './sink';
import { renderDefinitionList, renderTable } from './structures';
import {
  BR,
  codeSpan,
  collapseWs,
  DOUBLE_SPACE,
  escapeInline,
  flattenInline,
  inlineText,
  mdTitle,
  mdUrl,
} from './text';

export interface MarkdownOptions {
  resolver: UrlResolver;
  /** Replace `data:` image URLs with a placeholder (alt text kept). */
  removeBase64Images: boolean;
}

export const BASE64_PLACEHOLDER = '<Base64-Image-Removed>';

const LANG_CLASS = /(?:^|\s)(?:language-|lang-|highlight-source-|highlight-)([A-Za-z0-9_+#.-]+)/;
const NOT_A_LANG = new Set(['default', 'none', 'nohighlight', 'plain', 'notranslate']);
const LINE_NUMBERS = /(?:^|\s)(?:linenos?|line-?numbers?|lineno|gutter)(?:\s|$)/;
const PERMALINK_TEXT = /^(?:¶|#|§|🔗|\\#|link)$/;
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-url'];

/** Renders the filtered tree to GitHub-flavoured markdown in one recursive pass. */
export class MarkdownRenderer {
  /** Nesting depth of strong/em/del, so nested emphasis does not double its markers. */
  private readonly depth = [0, 0, 0];

  constructor(private readonly opts: MarkdownOptions) {}

  render(roots: readonly El[]): string {
    const sink = new Sink();
    for (const r of roots) this.element(r, sink);
    return sink.join();
  }

  children(el: El, sink: Sink): void {
    const ch = el.children;
    for (let i = 0; i < ch.length; i++) {
      const c = ch[i];
      if (typeof c === 'string') this.text(c, sink);
      else if (!(c.flags & F.Removed)) this.element(c, sink);
    }
  }

  /** Renders `el`'s content as one line of inline markdown. */
  inlineOf(el: El): string {
    const sink = new Sink(1);
    this.children(el, sink);
    return flattenInline(sink.inline.join(''));
  }

  /** Renders `el`'s children into `sink` in flat mode and takes the resulting inline parts back out. */
  private takeFlat(el: El, sink: Sink): string[] {
    const start = sink.inline.length;
    sink.flat++;
    this.children(el, sink);
    sink.flat--;
    return sink.inline.splice(start);
  }

  private text(raw: string, sink: Sink): void {
    // The parser turns blank runs outside <pre> into these two constants.
    sink.inline.push(raw === ' ' || raw === '\n' ? ' ' : inlineText(raw));
  }

  element(el: El, sink: Sink): void {
    const traits = el.traits;
    switch (traits >> KIND_SHIFT) {
      case K.Heading:
        return this.heading(el, sink, el.tag.charCodeAt(1) - 48);
      case K.Pre:
        return this.pre(el, sink);
      case K.List:
        return this.list(el, sink);
      case K.ListItem:
        sink.flush();
        return sink.push(this.listItem(el, '- '), true);
      case K.Blockquote:
        return this.blockquote(el, sink);
      case K.Table:
        return renderTable(this, el, sink);
      case K.DefinitionList:
        return renderDefinitionList(this, el, sink);
      case K.Hr:
        return sink.push('---');
      case K.Br:
        sink.inline.push(BR);
        sink.hasBr = true;
        return;
      case K.Img:
        return this.image(el, sink);
      case K.Link:
        return this.link(el, sink);
      case K.Strong:
        return this.wrap(el, sink, '**', 0);
      case K.Em:
        return this.wrap(el, sink, '*', 1);
      case K.Del:
        return this.wrap(el, sink, '~~', 2);
      case K.Code:
        if (el.flags & F.HasBlock) break;
        sink.inline.push(codeSpan(this.rawText(el, ' ')));
        return;
      case K.Input:
        if (attr(el, 'type')?.toLowerCase() === 'checkbox')
          sink.inline.push(hasAttr(el, 'checked') ? '[x] ' : '[ ] ');
        return;
    }
    if (traits & T.NoMarkdown) return;
    if (traits & T.Block) {
      sink.flush();
      this.children(el, sink);
      sink.flush();
    } else {
      this.children(el, sink);
    }
  }

  private heading(el: El, sink: Sink, level: number): void {
    sink.flush();
    const text = flattenInline(this.takeFlat(el, sink).join(''));
    if (sink.flat > 0) sink.inline.push(' ', text, ' ');
    else if (text !== '') sink.push(`${'#'.repeat(level)} ${text}`);
  }

  /** Decoded text of the subtree with `<br>` as `br`, skipping line-number gutters and non-content tags. */
  rawText(el: El, br: string): string {
    let out = '';
    const ch = el.children;
    for (let i = 0; i < ch.length; i++) {
      const c = ch[i];
      if (typeof c === 'string') out += decodeText(c);
      else if (c.tag === 'br') out += br;
      else if (!(c.flags & F.Removed) && !(c.traits & T.NoMarkdown) && c.tag !== 'button') {
        const cls = c.attrs === null ? undefined : rawAttr(c, 'class');
        if (cls === undefined || !LINE_NUMBERS.test(cls)) out += this.rawText(c, br);
      }
    }
    return out;
  }

  private pre(el: El, sink: Sink): void {
    let code = this.rawText(el, '\n');
    if (code.charCodeAt(0) === 10) code = code.slice(1);
    code = code.trimEnd();
    if (code.trim() === '') return;
    if (sink.flat > 0) {
      sink.inline.push(' ', codeSpan(code), ' ');
      return;
    }
    let longest = 0;
    if (code.indexOf('```') !== -1)
      for (const run of code.match(/`{3,}/g) ?? []) longest = Math.max(longest, run.length);
    const fence = '`'.repeat(Math.max(3, longest + 1));
    sink.push(`${fence}${codeLanguage(el)}\n${code}\n${fence}`);
  }

  private list(el: El, sink: Sink): void {
    if (sink.flat > 0) {
      this.children(el, sink);
      return;
    }
    sink.flush();
    const ordered = el.tag === 'ol';
    const start = ordered ? parseInt(attr(el, 'start') ?? '1', 10) : 1;
    const state = { n: Number.isFinite(start) ? start : 1, items: [] as string[] };
    this.listChildren(el, ordered, state);
    sink.push(state.items.join('\n'), true);
  }

  private listChildren(el: El, ordered: boolean, state: { n: number; items: string[] }): void {
    for (const c of el.children) {
      if (typeof c === 'string') {
        const t = escapeInline(collapseWs(decodeText(c)).trim());
        if (t !== '') state.items.push(`${ordered ? `${state.n++}.` : '-'} ${t}`);
        continue;
      }
      if (c.flags & F.Removed) continue;
      if (c.tag === 'li') {
        const item = this.listItem(c, ordered ? `${state.n}. ` : '- ');
        state.n++;
        if (item !== '') state.items.push(item);
      } else if (c.tag === 'ul' || c.tag === 'ol') {
        // A list directly inside a list (invalid but common) belongs to the previous item.
        const sub = new Sink();
        this.list(c, sub);
        const nested = sub.join();
        const last = state.items.length - 1;
        if (nested === '') continue;
        const width = ordered ? String(Math.max(1, state.n - 1)).length + 2 : 2;
        if (last >= 0) state.items[last] += `\n${' '.repeat(width)}${indent(nested, width)}`;
        else state.items.push(nested);
      } else if (c.traits & T.NoMarkdown) {
        continue;
      } else if (containsTag(c, 'li')) {
        this.listChildren(c, ordered, state);
      } else {
        const item = this.listItem(c, ordered ? `${state.n}. ` : '- ');
        if (item !== '') {
          state.n++;
          state.items.push(item);
        }
      }
    }
  }

  listItem(li: El, marker: string): string {
    const sub = new Sink(0, true);
    this.children(li, sub);
    const content = sub.join();
    if (content === '') return '';
    return marker + indent(content, marker.length).trimStart();
  }

  private blockquote(el: El, sink: Sink): void {
    if (sink.flat > 0) {
      this.children(el, sink);
      return;
    }
    sink.flush();
    const sub = new Sink();
    this.children(el, sub);
    const s = sub.join();
    if (s !== '') sink.push(s.replace(/^/gm, '> ').replace(/^> $/gm, '>'));
  }

  private wrap(el: El, sink: Sink, marker: string, kind: number): void {
    if (el.flags & F.HasBlock || this.depth[kind] > 0) {
      this.children(el, sink);
      return;
    }
    const start = sink.inline.length;
    this.depth[kind]++;
    this.children(el, sink);
    this.depth[kind]--;
    const parts = sink.inline.splice(start);
    const inner = parts.length === 1 ? parts[0] : parts.join('');
    if (parts.length > 1 && DOUBLE_SPACE.test(inner)) sink.spaces = true;
    const first = inner.charCodeAt(0);
    const last = inner.charCodeAt(inner.length - 1);
    if (first > 32 && last > 32) {
      sink.inline.push(marker, inner, marker);
      return;
    }
    // Emphasis markers must hug the text: flanking spaces and line breaks move outside them.
    const m = /^([ \u0001]*)([\s\S]*?)([ \u0001]*)$/.exec(inner) as RegExpExecArray;
    const edge = (s: string): string => (s === '' ? '' : s.indexOf(BR) !== -1 ? BR : ' ');
    if (m[2] === '') {
      sink.inline.push(edge(inner));
      return;
    }
    sink.inline.push(edge(m[1]), marker, m[2], marker, edge(m[3]));
  }

  private link(el: El, sink: Sink): void {
    const href = el.attrs === null ? undefined : rawAttr(el, 'href');
    const url = href === undefined ? null : this.opts.resolver.resolve(href);
    if (url === null || ((url.charCodeAt(0) | 0x20) === 106 && /^javascript:/i.test(url))) {
      this.children(el, sink);
      return;
    }
    const parts = this.takeFlat(el, sink);
    const joined = parts.length === 1 ? parts[0] : parts.join('');
    const text = flattenInline(joined);
    // Links without any text (icon links, empty anchors) and heading permalinks (¶, #) are noise.
    // (The permalink texts are at most 4 UTF-16 units: longer text skips the regex.)
    if (
      text === '' ||
      (text.length <= 4 && PERMALINK_TEXT.test(text) && (href as string).trimStart().startsWith('#'))
    )
      return;
    const lead = joined.charCodeAt(0) === 32 ? ' ' : '';
    const trail = joined.charCodeAt(joined.length - 1) === 32 ? ' ' : '';
    // Pushed as parts: the block sink joins them once with the rest of the paragraph.
    const dest = mdUrl(url);
    // Only a destination with spaces (written in angle brackets) can hold a double space.
    if (dest.charCodeAt(0) === 60 && DOUBLE_SPACE.test(dest)) sink.spaces = true;
    sink.inline.push(lead, '[', text, '](', dest, mdTitle(attr(el, 'title')), ')', trail);
  }

  private image(el: El, sink: Sink): void {
    const src = imageSource(el);
    if (src === undefined) return;
    const alt = escapeInline(collapseWs(attr(el, 'alt') ?? '').trim());
    let url: string | null;
    if (/^\s*data:/i.test(src)) {
      url = this.opts.removeBase64Images ? BASE64_PLACEHOLDER : decodeText(src).trim();
    } else {
      url = this.opts.resolver.resolve(src);
      if (url === null) return;
      url = mdUrl(url);
    }
    if (DOUBLE_SPACE.test(url)) sink.spaces = true;
    sink.inline.push(`![${alt}](${url}${mdTitle(attr(el, 'title'))})`);
  }
}

/** Raw src of an image, preferring lazy-loading attributes over placeholder `src`s. */
export function imageSource(el: El): string | undefined {
  const src = rawAttr(el, 'src');
  if (src === undefined || src.trim() === '' || (src.startsWith('data:') && src.length < 200)) {
    for (const a of LAZY_SRC) {
      const v = rawAttr(el, a);
      if (v !== undefined && v.trim() !== '') return v;
    }
    const set = rawAttr(el, 'srcset') ?? rawAttr(el, 'data-srcset');
    const best = set === undefined ? undefined : bestSrcsetCandidate(set);
    if (best !== undefined) return best;
  }
  return src === undefined || src.trim() === '' ? undefined : src;
}

function codeLanguage(pre: El): string {
  const candidates: (El | null)[] = [pre];
  for (const c of pre.children) if (typeof c !== 'string' && c.tag === 'code') candidates.push(c);
  candidates.push(pre.parent, pre.parent?.parent ?? null);
  for (const el of candidates) {
    if (el === null || el.attrs === null) continue;
    const explicit = attr(el, 'data-lang') ?? attr(el, 'data-language');
    if (explicit !== undefined && /^[\w+#.-]+$/.test(explicit)) return explicit.toLowerCase();
    const m = LANG_CLASS.exec(attr(el, 'class') ?? '');
    if (m !== null && !NOT_A_LANG.has(m[1].toLowerCase())) return m[1].toLowerCase();
  }
  return '';
}

function containsTag(el: El, tag: string): boolean {
  for (const c of el.children)
    if (typeof c !== 'string' && (c.tag === tag || containsTag(c, tag))) return true;
  return false;
}

/** Indents every non-empty line after the first by `n` spaces. */
function indent(s: string, n: number): string {
  return s.indexOf('\n') === -1 ? s : s.replace(/\n(?=[^\n])/g, `\n${' '.repeat(n)}`);
}
