import { selectAll, selectOne } from 'css-select';
import { parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';

/** The page's primary media: the first playable source of each kind, in document order. */
export interface PageMedia {
  video?: string;
  audio?: string;
}

const VIDEO_META = ['og:video:secure_url', 'og:video:url', 'og:video', 'twitter:player:stream'];
const AUDIO_META = ['og:audio:secure_url', 'og:audio:url', 'og:audio'];

/**
 * Finds the page's primary audio and video: HTML5 `<video>`/`<audio>` (their `src`, else their first
 * `<source>`), then the page's declared `og:video`/`og:audio`. Only http(s) URLs count (a `blob:` URL
 * is a script's stream, not a file); relative ones are resolved against `<base href>` and the page URL.
 */
export function discoverMedia(html: string, pageUrl: string): PageMedia {
  const dom = parseDocument(html);
  const baseHref = selectOne<AnyNode, Element>('base[href]', dom)?.attribs.href;
  const base = resolve(baseHref, pageUrl) ?? pageUrl;
  const fromElements = (tag: 'video' | 'audio'): string | undefined => {
    for (const el of selectAll<AnyNode, Element>(tag, dom)) {
      for (const candidate of sources(el)) {
        const url = resolve(candidate, base);
        if (url) return url;
      }
    }
    return undefined;
  };
  const fromMeta = (names: string[]): string | undefined => {
    for (const name of names) {
      for (const el of selectAll<AnyNode, Element>(`meta[property="${name}"], meta[name="${name}"]`, dom)) {
        const url = resolve(el.attribs.content, base);
        if (url) return url;
      }
    }
    return undefined;
  };
  return {
    video: fromElements('video') ?? fromMeta(VIDEO_META),
    audio: fromElements('audio') ?? fromMeta(AUDIO_META),
  };
}

function sources(el: Element): string[] {
  const out: string[] = [];
  if (el.attribs.src) out.push(el.attribs.src);
  for (const s of selectAll<AnyNode, Element>('source[src]', el)) out.push(s.attribs.src);
  return out;
}

function resolve(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const u = new URL(href.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
