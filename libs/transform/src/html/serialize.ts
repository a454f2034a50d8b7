import { El, F } from '../dom/node';
import { T } from '../dom/tags';
import { UrlResolver } from '../urls';

const URL_ATTRS = new Set(['href', 'src', 'action', 'poster', 'cite', 'data', 'background', 'formaction']);
const SRCSET_ATTRS = new Set(['srcset', 'imagesrcset']);

function escapeAttr(v: string): string {
  if (v.indexOf('&') === -1 && v.indexOf('"') === -1) return v;
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/**
 * Serialises the filtered tree back to HTML: removed subtrees, scripts/styles and comments are gone
 * (the tokenizer never kept them) and URL attributes are absolute. Text is copied as parsed.
 */
export class HtmlSerializer {
  private out: string[] = [];

  constructor(private readonly resolver: UrlResolver) {}

  serialize(roots: readonly El[]): string {
    this.out = [];
    for (const r of roots) {
      if (r.tag === '#root') this.children(r);
      else this.element(r);
    }
    return this.out.join('');
  }

  private children(el: El): void {
    const out = this.out;
    for (const c of el.children) {
      if (typeof c === 'string') out.push(c.indexOf('<') === -1 ? c : c.replace(/</g, '&lt;'));
      else if (!(c.flags & F.Removed)) this.element(c);
    }
  }

  private element(el: El): void {
    const out = this.out;
    // One string per start tag keeps the final join short (it dominated with one part per token).
    let tag = `<${el.tag}`;
    const a = el.attrs;
    if (a !== null) {
      for (let i = 0; i < a.length; i += 2) {
        const name = a[i];
        let value = a[i + 1];
        if (URL_ATTRS.has(name) && !/^\s*(?:data|javascript|mailto|tel):/i.test(value)) {
          value = escapeAttr(this.resolver.resolve(value) ?? value);
        } else if (SRCSET_ATTRS.has(name)) {
          value = escapeAttr(this.srcset(value));
        } else if (value.indexOf('"') !== -1) {
          value = value.replace(/"/g, '&quot;');
        }
        tag += value === '' ? ` ${name}` : ` ${name}="${value}"`;
      }
    }
    out.push(`${tag}>`);
    if (el.traits & T.Void) return;
    this.children(el);
    out.push(`</${el.tag}>`);
  }

  private srcset(raw: string): string {
    return raw
      .split(/,\s+/)
      .map((part) => {
        const [url, ...rest] = part.trim().split(/\s+/);
        const abs = url.startsWith('data:') ? url : (this.resolver.resolve(url) ?? url);
        return [abs, ...rest].join(' ');
      })
      .join(', ');
  }
}
