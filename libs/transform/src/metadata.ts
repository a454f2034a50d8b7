import { attr, decodeText, El, rawAttr } from './dom/node';
import type { ParsedDocument } from './dom/parse';
import type { PageMetadata } from './types';
import { UrlResolver } from './urls';

/** og:* properties exposed under camelCase names (Firecrawl's metadata shape). */
const OG_FIELDS: Record<string, string> = {
  'og:title': 'ogTitle',
  'og:description': 'ogDescription',
  'og:url': 'ogUrl',
  'og:image': 'ogImage',
  'og:audio': 'ogAudio',
  'og:determiner': 'ogDeterminer',
  'og:locale': 'ogLocale',
  'og:site_name': 'ogSiteName',
  'og:video': 'ogVideo',
};

function clean(s: string): string {
  return decodeText(s)
    .replace(/[ \t\n\r\f\u00a0]+/g, ' ')
    .trim();
}

function textOf(el: El): string {
  let s = '';
  for (const c of el.children) s += typeof c === 'string' ? c : textOf(c);
  return s;
}

function favicon(doc: ParsedDocument, resolver: UrlResolver): string | undefined {
  let best: string | undefined;
  let bestRank = 0;
  for (const l of doc.linkTags) {
    const rel = ` ${(attr(l, 'rel') ?? '').toLowerCase()} `;
    const href = rawAttr(l, 'href');
    if (href === undefined || href.trim() === '' || rel.indexOf('icon') === -1) continue;
    // Prefer the classic favicon over touch/mask icons.
    const rank = / (?:shortcut )?icon /.test(rel) ? 3 : rel.indexOf('apple-touch-icon') !== -1 ? 2 : 1;
    if (rank > bestRank) {
      const url = resolver.resolve(href);
      if (url !== null) {
        best = url;
        bestRank = rank;
      }
    }
  }
  return best;
}

/**
 * Page metadata: the well-known fields plus every `<meta name|property|itemprop|http-equiv content>` under
 * its own name (repeated names joined with ", ").
 */
export function extractMetadata(doc: ParsedDocument, resolver: UrlResolver): PageMetadata {
  const raw = new Map<string, string[]>();
  const byLower = new Map<string, string[]>();
  for (const m of doc.metas) {
    const key = attr(m, 'name') ?? attr(m, 'property') ?? attr(m, 'itemprop') ?? attr(m, 'http-equiv');
    const content = rawAttr(m, 'content');
    if (key === undefined || content === undefined) continue;
    const k = key.trim();
    if (k === '') continue;
    const v = clean(content);
    const list = raw.get(k);
    if (list === undefined) raw.set(k, [v]);
    else list.push(v);
    const lower = k.toLowerCase();
    const ll = byLower.get(lower);
    if (ll === undefined) byLower.set(lower, [v]);
    else ll.push(v);
  }
  const meta: PageMetadata = {};
  for (const [k, values] of raw) meta[k] = values.join(', ');

  const first = (name: string): string | undefined => {
    return byLower.get(name)?.find((x) => x !== '');
  };
  const title = doc.title === null ? '' : clean(textOf(doc.title));
  const set = (key: string, value: string | undefined): void => {
    if (value !== undefined && value !== '') meta[key] = value;
  };
  set('title', title !== '' ? title : first('og:title'));
  set('description', first('description') ?? first('og:description'));
  const lang = doc.html === null ? undefined : (attr(doc.html, 'lang') ?? attr(doc.html, 'xml:lang'));
  set('language', lang !== undefined && lang.trim() !== '' ? lang.trim() : first('content-language'));
  set('keywords', first('keywords'));
  set('robots', first('robots'));
  for (const [prop, field] of Object.entries(OG_FIELDS)) set(field, first(prop));
  const alternates = byLower.get('og:locale:alternate')?.filter((x) => x !== '');
  if (alternates !== undefined && alternates.length > 0) meta.ogLocaleAlternate = alternates;
  set('favicon', favicon(doc, resolver));
  return meta;
}
