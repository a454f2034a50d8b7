import { ClassIdMemo, classAndId } from '../dom/class-id';
import { El, F, isInside, rawAttr, underFlag } from '../dom/node';
import { T } from '../dom/tags';
import { selectContent } from './content-score';

const enum Kind {
  None = 0,
  /** Boilerplate by tag or ARIA role: removed unless it holds the main content. */
  Strong = 1,
  /** Boilerplate by class/id word: also kept when it holds most of the page's prose. */
  Pattern = 2,
}

// Consent managers are matched anywhere in class/id because their ids are compounds
// (CybotCookiebotDialog, onetrust-banner-sdk, qc-cmp2-container).
const CONSENT = /cookie|consent|gdpr|onetrust|didomi|usercentrics|cmpbox|qc-cmp|truste-/i;
// Words matched as whole hyphen/underscore-separated tokens (some as prefixes of camelCase compounds).
const BOILERPLATE =
  /(?:^|[^a-z0-9])(?:(?:sidebar|side-bar|navbar|breadcrumb|newsletter|social|popup|modal|advert|sponsor|adsense|share(?:bar|buttons|links|tools))[a-z0-9]*|nav|navigation|menu|mega-menu|share|sharing|sharethis|addthis|subscribe|subscription|signup|pop-up|ads?|ad-slot|adslot|adunit|ad-container|skip|skiplink|skip-link|skip-nav|skip-to-content|related|related-posts|toolbar|lightbox)(?=$|[^a-z0-9])/i;
// Site-level header/footer containers, matched against the whole class token so that `card-header`
// (content) is not mistaken for the page header.
const HEADER_FOOTER =
  /(?:^|\s)(?:site-|global-|page-|main-|top-)?(?:header|footer|masthead|topbar|top-bar)(?:-wrapper|-container|-inner)?(?=$|\s)/i;

const STRONG_ROLES = new Set([
  'navigation',
  'complementary',
  'dialog',
  'alertdialog',
  'search',
  'menubar',
  'menu',
  'toolbar',
]);

interface Scan {
  mains: El[];
  articles: El[];
  candidates: El[];
  kinds: Kind[];
  h1s: El[];
  /** Class/id value -> its {@link Word} bits. */
  words: ClassIdMemo<number>;
}

const enum Word {
  Consent = 1,
  Boilerplate = 2,
  HeaderFooter = 4,
}

function classWords(s: string): number {
  return (
    (CONSENT.test(s) ? Word.Consent : 0) |
    (BOILERPLATE.test(s) ? Word.Boilerplate : 0) |
    (HEADER_FOOTER.test(s) ? Word.HeaderFooter : 0)
  );
}

function classify(el: El, role: string | undefined, inContent: boolean, words: ClassIdMemo<number>): Kind {
  const traits = el.traits;
  if (traits & T.NotBoilerplate) return Kind.None;
  if (traits & T.BoilerplateTag) {
    const tag = el.tag;
    // Article/section headers hold the title and byline; only page-level ones are boilerplate.
    if (tag !== 'header' && tag !== 'footer') return Kind.Strong;
    if (!inContent && !(el.flags & F.HasH1)) return Kind.Strong;
  }
  const attrs = el.attrs;
  if (attrs === null) return Kind.None;
  if (role !== undefined) {
    const r = role.toLowerCase();
    if (STRONG_ROLES.has(r)) return Kind.Strong;
    if ((r === 'banner' || r === 'contentinfo') && !inContent && !(el.flags & F.HasH1)) return Kind.Strong;
  }
  // One pass over the attributes instead of a lookup per name.
  let cls: string | undefined;
  let id: string | undefined;
  for (let i = 0; i < attrs.length; i += 2) {
    const name = attrs[i];
    if (name === 'class') cls = attrs[i + 1];
    else if (name === 'id') id = attrs[i + 1];
    else if (name === 'aria-modal' && attrs[i + 1] === 'true') return Kind.Strong;
  }
  const s = classAndId(cls, id);
  if (s === undefined) return Kind.None;
  const bits = words.of(s);
  if (bits & Word.Consent) return Kind.Strong;
  if (bits & Word.Boilerplate) return Kind.Pattern;
  if (!inContent && !(el.flags & F.HasH1) && bits & Word.HeaderFooter) return Kind.Pattern;
  return Kind.None;
}

function isMain(el: El): boolean {
  return el.tag === 'main' || (el.attrs !== null && rawAttr(el, 'role') === 'main');
}

function isArticle(el: El): boolean {
  return el.tag === 'article' || (el.attrs !== null && rawAttr(el, 'role') === 'article');
}

function scan(el: El, inContent: boolean, out: Scan): void {
  const ch = el.children;
  for (let i = 0; i < ch.length; i++) {
    const c = ch[i];
    if (typeof c === 'string' || c.flags & F.Removed) continue;
    let content = inContent;
    const role = c.attrs === null ? undefined : rawAttr(c, 'role');
    if (c.tag === 'main' || role === 'main') {
      out.mains.push(c);
      content = true;
    } else if (c.tag === 'article' || role === 'article') {
      out.articles.push(c);
      content = true;
    } else if (c.tag === 'h1') {
      out.h1s.push(c);
    }
    const kind = classify(c, role, inContent, out.words);
    if (kind !== Kind.None) {
      out.candidates.push(c);
      out.kinds.push(kind);
    }
    if (c.children.length > 0) scan(c, content, out);
  }
}

function keep(el: El): void {
  for (let p: El | null = el; p !== null && !(p.flags & F.Keep); p = p.parent) p.flags |= F.Keep;
}

function kept(el: El): number {
  return el.textLen - el.removedLen;
}

function commonAncestor(els: El[]): El {
  let lca = els[0];
  for (let i = 1; i < els.length; i++) {
    while (!isInside(els[i], lca)) lca = lca.parent as El;
  }
  return lca;
}

export interface MainContentOptions {
  /** Narrow to `<main>`/`<article>` when one holds a non-trivial share of the page (not with includeTags). */
  narrow: boolean;
}

/**
 * Deterministic boilerplate removal: marks navigation, page header/footer, sidebars, consent banners,
 * share/newsletter widgets, ads, breadcrumbs, skip links and dialogs as removed, never touching an
 * element that contains the main content. Returns the roots to render.
 */
export function filterMainContent(roots: El[], opts: MainContentOptions): El[] {
  const found: Scan = {
    mains: [],
    articles: [],
    candidates: [],
    kinds: [],
    h1s: [],
    words: new ClassIdMemo(classWords),
  };
  for (const r of roots) scan(r, isMain(r) || isArticle(r), found);
  for (const r of roots) r.flags |= F.Keep;

  let protectedEls = found.mains;
  if (protectedEls.length === 0 && found.articles.length > 0) {
    const max = Math.max(...found.articles.map((a) => a.textLen));
    protectedEls = found.articles.filter((a) => a.textLen >= max * 0.25);
  }
  for (const p of protectedEls) keep(p);

  const scope = roots.length === 1 ? roots[0] : null;
  const prose = scope === null ? 0 : scope.textLen - scope.linkLen;
  const removed: El[] = [];
  for (let i = 0; i < found.candidates.length; i++) {
    const el = found.candidates[i];
    if (el.flags & F.Keep || underFlag(el, F.Removed)) continue;
    // A class word on a wrapper that holds most of the page's prose is a false positive
    // (e.g. `<div class="layout has-sidebar">` around everything).
    if (found.kinds[i] === Kind.Pattern && prose > 0 && el.textLen - el.linkLen > prose * 0.5) continue;
    el.flags |= F.Removed;
    removed.push(el);
    for (let p = el.parent; p !== null; p = p.parent) p.removedLen += el.textLen;
  }

  let result = roots;
  const selected = opts.narrow && scope !== null ? selectContent(scope) : null;
  if (selected !== null && selected.root !== scope) {
    const target = selected.root;
    result = [target];
    if (!(target.flags & F.HasH1)) {
      const title = found.h1s.find(
        (h) => h.idx < target.idx && !underFlag(h, F.Removed) && h.textLen > 0 && !isInside(h, target),
      );
      if (title !== undefined) result = [title, target];
    }
  } else if (opts.narrow && scope !== null && protectedEls.length > 0) {
    const target = commonAncestor(protectedEls);
    // "Not tiny vs the body text": a small <main> around a teaser is no reason to drop the rest.
    if (target !== scope && isInside(target, scope) && kept(target) >= kept(scope) * 0.25) {
      result = [target];
      if (!(target.flags & F.HasH1)) {
        // The title h1 often sits just above the <article>; keep it with the content.
        const title = found.h1s.find(
          (h) => h.idx < target.idx && !underFlag(h, F.Removed) && h.textLen > 0 && !isInside(h, target),
        );
        if (title !== undefined) result = [title, target];
      }
    }
  }

  // Safety net: boilerplate rules must never empty a page that has text.
  const total = roots.reduce((s, r) => s + r.textLen, 0);
  const left = result.reduce((s, r) => s + kept(r), 0);
  if (total > 0 && left < total * 0.02) {
    for (const el of removed) el.flags &= ~F.Removed;
    return roots;
  }
  return result;
}
