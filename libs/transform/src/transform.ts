import { El, elementMark, F, rawAttr, releaseElements } from './dom/node';
import { parseHtml, ParsedDocument } from './dom/parse';
import { filterMainContent } from './filter/main-content';
import { parseSelectors, removeMatching, selectOutermost } from './filter/selectors';
import { HtmlSerializer } from './html/serialize';
import { imageSource, MarkdownRenderer } from './markdown/render';
import { extractMetadata } from './metadata';
import type { TransformOptions, TransformResult } from './types';
import { bestSrcsetCandidate, isHttp, UrlResolver } from './urls';

function topOf(doc: ParsedDocument): El {
  return doc.body ?? doc.html ?? doc.root;
}

function contentRoots(doc: ParsedDocument, opts: TransformOptions): El[] {
  const top = topOf(doc);
  const include = opts.includeTags?.filter((s) => s.trim() !== '') ?? [];
  let roots = include.length > 0 ? selectOutermost(doc.root, parseSelectors(include)) : [top];
  const exclude = opts.excludeTags?.filter((s) => s.trim() !== '') ?? [];
  if (exclude.length > 0) {
    const sels = parseSelectors(exclude);
    removeMatching(roots, sels);
    roots = roots.filter((r) => !(r.flags & F.Removed));
  }
  if (opts.onlyMainContent ?? true) roots = filterMainContent(roots, { narrow: include.length === 0 });
  return roots;
}

function collectLinks(doc: ParsedDocument, resolver: UrlResolver): string[] {
  const seen = new Set<string>();
  const anchors = doc.anchors;
  for (let i = 0; i < anchors.length; i++) {
    const href = rawAttr(anchors[i], 'href') as string;
    const c = href.charCodeAt(0);
    // Only a value starting with whitespace (all of it is <= 32 or >= 0xa0) needs the trim.
    if (c === 35 || ((c <= 32 || c >= 0xa0) && href.trimStart().startsWith('#'))) continue;
    const url = resolver.resolve(href);
    if (url !== null && isHttp(url)) seen.add(url);
  }
  return [...seen];
}

function collectImages(doc: ParsedDocument, resolver: UrlResolver, ogImage: unknown): string[] {
  const seen = new Set<string>();
  const add = (raw: string | undefined): void => {
    if (raw === undefined) return;
    const url = resolver.resolve(raw);
    if (url !== null && isHttp(url)) seen.add(url);
  };
  for (const el of doc.images) {
    if (el.tag === 'img') {
      add(imageSource(el));
      const set = rawAttr(el, 'srcset');
      if (set !== undefined) add(bestSrcsetCandidate(set));
    } else if (el.parent?.tag === 'picture') {
      const set = rawAttr(el, 'srcset') ?? rawAttr(el, 'data-srcset');
      if (set !== undefined) add(bestSrcsetCandidate(set));
    }
  }
  if (typeof ogImage === 'string') add(ogImage);
  return [...seen];
}

/**
 * The scrape's HTML pipeline: parse once, then produce markdown, cleaned HTML, links, images and
 * metadata. Pure and synchronous: no network, no clock.
 */
export function transformHtml(rawHtml: string, opts: TransformOptions): TransformResult {
  // The tree's elements go back to this thread's pool (dom/node.ts) once the result is made: nothing
  // in the result refers to them.
  const mark = elementMark();
  try {
    return transformDocument(parseHtml(rawHtml), rawHtml, opts);
  } finally {
    releaseElements(mark);
  }
}

function transformDocument(doc: ParsedDocument, rawHtml: string, opts: TransformOptions): TransformResult {
  const resolver = new UrlResolver(opts.url, doc.base === null ? undefined : rawAttr(doc.base, 'href'));
  const metadata = extractMetadata(doc, resolver);
  const result: TransformResult = { metadata };
  const f = opts.formats;
  if (f.has('links')) result.links = collectLinks(doc, resolver);
  if (f.has('images')) result.images = collectImages(doc, resolver, metadata.ogImage);
  if (f.has('markdown') || f.has('html')) {
    const roots = contentRoots(doc, opts);
    if (f.has('markdown')) {
      const renderer = new MarkdownRenderer({
        resolver,
        removeBase64Images: opts.removeBase64Images ?? true,
      });
      result.markdown = renderer.render(roots);
    }
    if (f.has('html')) {
      // Unnarrowed output is the whole cleaned document (head with title/meta included).
      const whole = roots.length === 1 && roots[0] === topOf(doc);
      result.html = new HtmlSerializer(resolver).serialize(whole ? [doc.html ?? doc.root] : roots);
    }
  }
  if (f.has('rawHtml')) result.rawHtml = rawHtml;
  return result;
}
