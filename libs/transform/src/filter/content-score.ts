import { ClassIdMemo, classAndId } from '../dom/class-id';
import { El, F, isInside, rawAttr, underFlag } from '../dom/node';
import { T } from '../dom/tags';
import { emphasised, isSmallPrint, opensWithRule } from './typography';

/**
 * Content scoring over the parsed tree (after the boilerplate filter), in the spirit of Readability's
 * node scoring and jusText's block classification, computed in a few linear passes over our
 * single-pass tree:
 *
 * 1. Blocks: every block-level element's own inline text (text not inside a nested block) with its
 *    link text. A block is *good* when it carries enough non-link prose, *linky* when most of its text
 *    is link text. Hidden elements (`hidden`, inline `display:none`) are dropped.
 * 2. Class/id weights: containers named like comments, related/recommended lists, promos, bylines,
 *    author bios, tags, captions... hold no content, unless the container (or all containers sharing
 *    that word, with no real prose outside them) holds most of the page's good prose.
 * 3. Candidates: each block's prose is credited to its container and, decaying, to a few ancestors; a
 *    candidate's score is discounted by its link density. From the best candidate, siblings that carry
 *    prose of their own (or a table) are merged by moving up to their parent, looking a few levels up;
 *    the siblings that carry none are dropped.
 * 4. Inside the root: the negative-named containers are dropped, and so are link rows before the first
 *    and after the last good block (share rows, tag lists, "read more" links).
 * 5. Typographic cues (./typography): small print (`<small>`, inline font sizes of 11px and below) is
 *    metadata unless it sits in running prose; a sibling section that opens with a thematic break
 *    (`<hr>`) after the text is end matter and is not merged; a closing run of all-emphasised
 *    paragraphs carrying links (subscribe/follow/contact notes) is dropped.
 */

/** Non-link characters for a block to count as prose on its own. */
const GOOD_TEXT = 80;
/** Link-text share above which a block is navigation-like. */
const LINKY = 0.5;
/** A good block may carry some inline links (citations), up to this share. */
const GOOD_MAX_LINK = 0.35;
/** Shortest run of prose that counts for a root. */
const MIN_TEXT = 25;
/** Link share from which a block inside running text is a link row ("Related: ...", "READ MORE: ..."). */
const MIDDLE_LINK = 0.8;
/** Minimum candidate score of a sibling merged into the content root. */
const PROSE_SIBLING = 60;
/** Link density above which a sibling is a link list, not content. */
const SIBLING_MAX_LINK = 0.3;
/** How many levels above the best candidate (or the last merge) siblings are looked for. */
const MERGE_LEVELS = 6;
/** Below this much good prose in the best root the page is not prose-like (listing, form, gallery). */
const MIN_GOOD_TOTAL = 200;

// Class/id words (whole hyphen/underscore/camelCase-separated tokens or their prefixes) of containers
// that hold something other than the main text.
const NEGATIVE =
  /(?:^|[^a-z])(?:comment|disqus|respond|related|recommend|promo|outbrain|taboola|newsletter|subscri|byline|author|bio|meta|tags|tag-?list|tagged|categor|share|sharing|social|sponsor|popular|trending|most-?read|more-?stories|read-?more|readmore|also-?read|caption|credit|signup|sign-?up|cta|paywall|teaser|recirc|upsell|rating|pagination|pager|prev|previous|next|breadcrumb|footnote-?ref|print|toolbar|dateline|timestamp|date|published|posted|ad|ads|advert|footer)(?=$|[^a-z])/i;

// The words that also mark an inline element (a `<span class="date">`, `<time class="timestamp">`, a
// caption span under a photo): page metadata, dropped unless it sits in a paragraph of prose.
const INLINE_META = new Set([
  'dateline',
  'timestamp',
  'date',
  'published',
  'posted',
  'byline',
  'caption',
  'credit',
  'small',
]);
// schema.org dates (`itemprop="datePublished"`) are metadata whatever their class.
const REL_TAG = /(?:^|\s)tag(?=\s|$)/i;
const META_ITEMPROP = /^date(?:Published|Modified|Created)$/;

const enum Kind {
  Good = 1,
  Linky = 2,
  Short = 3,
}

interface Block {
  el: El;
  text: number;
  link: number;
  /** The block's own text ends a sentence. */
  sentence: boolean;
  kind: Kind;
}

class Collector {
  readonly blocks: Block[] = [];
  /** Containers with a negative class/id word (or nested articles), with that word. */
  readonly negatives = new Map<El, string>();
  /** Inline elements (span, time, small...) named as metadata; vetted against their block later. */
  readonly inlineMeta: El[] = [];
  /** Links marked `rel="tag"` (the rel-tag microformat: a post's tag and category links). */
  readonly tagLinks: El[] = [];
  /** Class/id value -> its negative word (null for none). */
  private readonly words = new ClassIdMemo(negativeWord);
  /** Largest pre-order index seen: the size of the per-element score arrays. */
  maxIdx = 0;
  /** The nearest block element and its record, created on its first text (wrappers get none). */
  private curEl: El | null = null;
  private cur: Block | null = null;

  /** Collects the blocks under `el` (not removed) that hold text, in the order of their first text. */
  walk(el: El, inLink: boolean, inArticle: boolean): void {
    const isBlock = (el.flags & F.Block) !== 0;
    if (el.idx > this.maxIdx) this.maxIdx = el.idx;
    const outer = this.cur;
    const outerEl = this.curEl;
    if (isBlock) {
      this.curEl = el;
      this.cur = null;
    }
    const link = inLink || el.tag === 'a';
    const article = inArticle || el.tag === 'article';
    const ch = el.children;
    for (let i = 0; i < ch.length; i++) {
      const c = ch[i];
      if (typeof c === 'string') {
        // Raw source length: blank runs between tags are the parser's one-character constants.
        const n = c.length;
        if (n <= 1 && (c === ' ' || c === '\n')) continue;
        let b = this.cur;
        if (b === null) {
          if (this.curEl === null) continue;
          b = this.cur = { el: this.curEl, text: 0, link: 0, sentence: false, kind: Kind.Short };
          this.blocks.push(b);
        }
        b.text += n;
        if (link) b.link += n;
        b.sentence = endsSentence(c);
      } else if (!(c.flags & F.Removed) && !(c.traits & T.NoMarkdown)) {
        if (c.tag === 'figcaption' || (c.attrs !== null ? this.attributes(c) : this.smallPrint(c))) {
          c.flags |= F.Removed;
          continue;
        }
        // An article inside an article is a teaser, a related story or a comment.
        if (article && c.tag === 'article' && !this.negatives.has(c)) this.negatives.set(c, 'article');
        this.walk(c, link, article);
      }
    }
    if (isBlock) {
      this.cur = outer;
      this.curEl = outerEl;
    }
  }

  /** A bare `<small>` (HTML's side comments and small print) is vetted like inline metadata. */
  private smallPrint(el: El): boolean {
    if (el.tag === 'small') this.inlineMeta.push(el);
    return false;
  }

  /** One pass over the attributes: true when hidden; records a negative class/id word. */
  private attributes(el: El): boolean {
    const attrs = el.attrs as string[];
    let cls: string | undefined;
    let id: string | undefined;
    let dateProp = false;
    let small = el.tag === 'small';
    for (let i = 0; i < attrs.length; i += 2) {
      const name = attrs[i];
      if (name === 'class') cls = attrs[i + 1];
      else if (name === 'id') id = attrs[i + 1];
      else if (name === 'hidden') return true;
      else if (name === 'style') {
        if (HIDDEN_STYLE.test(attrs[i + 1])) return true;
        if (isSmallPrint(attrs[i + 1])) small = true;
      } else if (name === 'itemprop' && META_ITEMPROP.test(attrs[i + 1])) dateProp = true;
      else if (name === 'rel' && el.tag === 'a' && REL_TAG.test(attrs[i + 1])) this.tagLinks.push(el);
    }
    const inline = (el.traits & T.NotBoilerplate) !== 0;
    let word: string | undefined = dateProp ? 'date' : undefined;
    // Utility classes that hide an element (`hidden`, `d-none`): an overlay or a gallery shown by script.
    if (cls !== undefined && HIDDEN_CLASS.test(cls)) return true;
    if (word === undefined) {
      const s = classAndId(cls, id);
      const w = s === undefined ? null : this.words.of(s);
      if (w !== null) word = w;
    }
    if (word === undefined && small) word = 'small';
    if (word === undefined) return false;
    if (!inline) this.negatives.set(el, word);
    else if (INLINE_META.has(word) && el.tag !== 'a' && el.tag !== 'img') this.inlineMeta.push(el);
    return false;
  }
}

function insideArticle(el: El): boolean {
  for (let p: El | null = el; p !== null; p = p.parent) if (p.tag === 'article') return true;
  return false;
}

const HIDDEN_CLASS = /(?:^|\s)(?:hidden|d-none)(?=\s|$)/;
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

function endsSentence(s: string): boolean {
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (c <= 32) continue;
    // . ! ? : " ' ) ” ’ » … 。
    return (
      c === 46 ||
      c === 33 ||
      c === 63 ||
      c === 34 ||
      c === 39 ||
      c === 41 ||
      c === 0x201d ||
      c === 0x2019 ||
      c === 0xbb ||
      c === 0x2026 ||
      c === 0x3002
    );
  }
  return false;
}

function classify(b: Block): Kind {
  const prose = b.text - b.link;
  if (b.text > 0 && b.link / b.text > LINKY) return Kind.Linky;
  if (prose >= GOOD_TEXT && b.link / b.text <= GOOD_MAX_LINK) return Kind.Good;
  return Kind.Short;
}

/** The negative word a class/id value holds (`comment`, `related`, `share`…), or null. */
function negativeWord(s: string): string | null {
  const m = NEGATIVE.exec(words(s));
  return m === null ? null : m[0].replace(/^[^a-zA-Z]/, '').toLowerCase();
}

/** Splits camelCase so that `commentList` reads as `comment-List`. */
function words(s: string): string {
  return CAMEL.test(s) ? s.replace(CAMEL_ALL, '$1-$2') : s;
}

const CAMEL = /[a-z][A-Z]/;
const CAMEL_ALL = /([a-z])([A-Z])/g;

export interface ContentSelection {
  /** The element whose subtree is the main content. */
  root: El;
}

/**
 * Scores the kept tree under `scope` and marks what is not main content as removed. Returns the
 * content root, or null (nothing changed) when the page has too little prose to judge.
 */
export function selectContent(scope: El): ContentSelection | null {
  const collector = new Collector();
  collector.walk(scope, false, insideArticle(scope));
  const negatives = collector.negatives;
  const blocks = collector.blocks;
  if (blocks.length === 0) return null;

  // Good prose per element (subtree sums), to vet the class-word matches against.
  const good = new Float64Array(collector.maxIdx + 1);
  let goodTotal = 0;
  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi];
    b.kind = classify(b);
  }
  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi];
    if (b.kind !== Kind.Good) continue;
    const v = b.text - b.link;
    goodTotal += v;
    for (let p: El | null = b.el; p !== null; p = p.parent) {
      good[p.idx] += v;
      if (p === scope) break;
    }
  }
  if (goodTotal < MIN_GOOD_TOTAL) return null;

  // A class word on a container holding most of the prose is a false positive (`post-has-comments`),
  // and so is a word shared by the containers that together hold it (`elementor-widget` around every
  // section, `comment` on every post of a thread) when there is no real text outside them.
  const wordGood = new Map<string, number>();
  if (negatives.size > 0) {
    for (let bi = 0; bi < blocks.length; bi++) {
      const b = blocks[bi];
      if (b.kind !== Kind.Good) continue;
      const seen: string[] = [];
      for (let p: El | null = b.el; p !== null && p !== scope; p = p.parent) {
        const w = negatives.get(p);
        if (w === undefined || seen.includes(w)) continue;
        seen.push(w);
        wordGood.set(w, (wordGood.get(w) ?? 0) + b.text - b.link);
      }
    }
  }
  // Inline metadata counts unless it sits in a block of running prose (a name tagged in a sentence).
  if (collector.inlineMeta.length > 0) {
    const byEl = new Map<El, Block>();
    for (let bi = 0; bi < blocks.length; bi++) {
      const b = blocks[bi];
      byEl.set(b.el, b);
    }
    for (const el of collector.inlineMeta) {
      let p: El | null = el.parent;
      while (p !== null && !(p.flags & F.Block)) p = p.parent;
      const b = p === null ? undefined : byEl.get(p);
      if (
        b === undefined ||
        b.kind !== Kind.Good ||
        el.textLen >= b.text * 0.5 ||
        (b.el.flags & F.HasBlock) !== 0
      )
        negatives.set(el, 'inline-meta');
    }
  }
  // A run of tag links: the inline wrapper (or block) holding them, when they are most of its text.
  for (const a of collector.tagLinks) {
    const p = a.parent;
    if (p === null || p === scope || negatives.has(p)) continue;
    if (p.linkLen >= p.textLen * 0.5 && p.textLen < 1000) negatives.set(p, 'tags');
  }
  const negs: El[] = [];
  for (const [el, w] of negatives) {
    if (good[el.idx] > goodTotal * 0.5) continue;
    const g = wordGood.get(w) ?? 0;
    if (g > goodTotal * 0.5 && goodTotal - g < MIN_GOOD_TOTAL) continue;
    el.flags |= F.Negative;
    negs.push(el);
  }

  const root = pickRoot(blocks, scope, new Float64Array(collector.maxIdx + 1));
  if (root === null) {
    for (const el of negs) el.flags &= ~F.Negative;
    return null;
  }

  for (const el of negs) if (isInside(el, root) && el !== root) el.flags |= F.Removed;
  trimEdges(blocks, root, new Float64Array(collector.maxIdx + 1));
  for (const el of negs) el.flags &= ~F.Negative;
  return { root };
}

/** Drops the blocks of `root` before the first and after the last good one, keeping lead-in headings. */
function trimEdges(blocks: Block[], root: El, goodCount: Float64Array): void {
  // Blocks are in document order and a subtree's elements have consecutive pre-order indexes.
  const end = lastIdx(root);
  const inside: Block[] = [];
  let total = 0;
  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi];
    const i = b.el.idx;
    if (i >= root.idx && i <= end && !removedBelow(b.el, root)) {
      inside.push(b);
      total += b.text;
    }
  }
  let first = -1;
  let last = -1;
  for (let i = 0; i < inside.length; i++) {
    if (inside[i].kind === Kind.Good) {
      if (first === -1) first = i;
      last = i;
    }
  }
  if (first === -1) return;
  // Extend over adjacent short prose (a one-line opening or closing paragraph) and a lead-in heading.
  while (first > 0 && isLeadIn(inside[first - 1])) first--;
  while (last < inside.length - 1 && isProse(inside[last + 1])) last++;
  // Blocks sharing a top-level item of the root with a good block belong to it (a listing's linked
  // title above its excerpt).
  const goodItems = new Set<El>();
  for (let bi = 0; bi < inside.length; bi++) {
    const b = inside[bi];
    if (b.kind === Kind.Good) goodItems.add(itemOf(b.el, root));
  }
  // Good blocks per container, to tell a link row dropped into running text ("Related: ...", "READ
  // MORE: ...") from the linked title of a listing item next to its excerpt.
  for (let bi = 0; bi < inside.length; bi++) {
    const b = inside[bi];
    if (b.kind !== Kind.Good) continue;
    for (let p: El | null = b.el; p !== null; p = p.parent) {
      goodCount[p.idx]++;
      if (p === root) break;
    }
  }
  for (let i = 0; i < inside.length; i++) {
    const el = inside[i].el;
    if (i >= first && i <= last) {
      if (
        inside[i].kind === Kind.Linky &&
        inside[i].link >= inside[i].text * MIDDLE_LINK &&
        !(el.flags & F.HasBlock) &&
        el !== root &&
        el.tag !== 'h1'
      ) {
        let p: El | null = el;
        while (p !== null && p !== root && goodCount[p.idx] === 0) p = p.parent;
        if (goodCount[(p ?? root).idx] > 2) el.flags |= F.Removed;
      }
      continue;
    }
    if (goodItems.has(itemOf(el, root))) continue;
    // Only leaf blocks: a container's own text may surround kept blocks.
    if (el.flags & F.HasBlock || el === root) continue;
    if (inside[i].text === 0 || el.tag === 'h1') continue;
    // Short plain text at the edges (a price, a lead-in line, a spec) may be content; links are not.
    if (inside[i].kind !== Kind.Linky) continue;
    el.flags |= F.Removed;
  }
  dropTrailingNotes(inside, first, root, total);
}

/**
 * Closing notes set apart in italics or bold after the text (an author bio, "Email the author at ...",
 * "Follow us on ...", a newsletter or subscription pitch, a sponsor line): a run of paragraphs at the
 * end of the root whose prose is all emphasised, after the last plain paragraph. Link rows between
 * them are skipped; the run is kept when it is a large share of the text (an all-italic article).
 */
function dropTrailingNotes(inside: Block[], first: number, root: El, total: number): void {
  const notes: El[] = [];
  let noteText = 0;
  for (let i = inside.length - 1; i > first; i--) {
    const b = inside[i];
    const el = b.el;
    if (b.text === 0 || b.kind === Kind.Linky || removedBelow(el, root)) continue;
    if (el.flags & F.HasBlock || el === root || !emphasised(el) || b.link === 0) break;
    notes.push(el);
    noteText += b.text;
  }
  if (notes.length === 0 || noteText > total * NOTES_MAX_SHARE) return;
  for (const el of notes) el.flags |= F.Removed;
}

/** Share of a trailing run of emphasised notes in the root's text above which it is the text itself. */
const NOTES_MAX_SHARE = 0.25;

function inLinkedItem(el: El, scope: El): boolean {
  for (let p: El | null = el; p !== null && p !== scope; p = p.parent) {
    if (p.tag === 'li') return p.linkLen >= p.textLen * 0.15;
  }
  return false;
}

/** Pre-order index of the last element in `el`'s subtree. */
function lastIdx(el: El): number {
  let last = el;
  for (;;) {
    const ch = last.children;
    let next: El | null = null;
    for (let i = ch.length - 1; i >= 0; i--) {
      const c = ch[i];
      if (typeof c !== 'string') {
        next = c;
        break;
      }
    }
    if (next === null) return last.idx;
    last = next;
  }
}

/** True when `el` or an ancestor up to `root` is removed. */
function removedBelow(el: El, root: El): boolean {
  for (let p: El | null = el; p !== null; p = p.parent) {
    if (p.flags & F.Removed) return true;
    if (p === root) return false;
  }
  return false;
}

/** The child of `root` that holds `el` (or `el` itself when it is the root). */
function itemOf(el: El, root: El): El {
  let p = el;
  while (p.parent !== null && p.parent !== root) p = p.parent;
  return p;
}

/** Prose value of a block for the root choice: 0 for chrome, links and negative-named containers. */
function proseValue(b: Block): number {
  if (b.text === 0 || b.kind === Kind.Linky) return 0;
  const prose = b.text - b.link;
  if (prose < MIN_TEXT || b.link > b.text * GOOD_MAX_LINK) return 0;
  if (underFlag(b.el, F.Negative)) return 0;
  return prose;
}

/**
 * The content root: prose is credited to the element holding it and, decaying, to a few ancestors
 * (so a container whose direct children are the paragraphs scores highest, not the page wrapper),
 * discounted by the candidate's link density; then siblings of the best candidate that also carry
 * prose are merged by moving up to their parent and dropping the siblings that carry none.
 */
function pickRoot(blocks: Block[], scope: El, prose: Float64Array): El | null {
  const cand = new Float64Array(prose.length);
  const cands: El[] = [];
  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi];
    const v = proseValue(b);
    if (v === 0) continue;
    for (let p: El | null = b.el; p !== null; p = p.parent) {
      prose[p.idx] += v;
      if (p === scope) break;
    }
    // Prose in a list item that also carries a link is a teaser's summary: it counts half, so that
    // a list of teasers does not out-score the article it sits beside (a listing alone still wins).
    const w = inLinkedItem(b.el, scope) ? v * 0.5 : v;
    let p: El | null = b.el.flags & F.HasBlock ? b.el : b.el.parent;
    for (let level = 0; p !== null && level < 5; level++, p = p.parent) {
      if (cand[p.idx] === 0) cands.push(p);
      cand[p.idx] += w / (level === 0 ? 1 : level === 1 ? 2 : level * 3);
      if (p === scope) break;
    }
  }
  let best: El | null = null;
  let bestScore = 0;
  for (let bi = 0; bi < cands.length; bi++) {
    const c = cands[bi];
    const s = cand[c.idx] * (1 - (c.textLen > 0 ? c.linkLen / c.textLen : 0));
    if (s > bestScore) {
      bestScore = s;
      best = c;
    }
  }
  if (best === null) return null;
  // Sibling merging: content split over sibling containers (body parts around an ad, the posts of a
  // thread, the sections of a page). Looks a few levels up for siblings that carry prose of their own.
  let root = best;
  let cur = best;
  for (let climbed = 0; cur !== scope && cur.parent !== null && climbed < MERGE_LEVELS;) {
    const parent: El = cur.parent;
    const threshold = Math.max(PROSE_SIBLING, prose[best.idx] * 0.2);
    const carries = (c: El): boolean =>
      !(c.idx > cur.idx && opensWithRule(c)) &&
      (prose[c.idx] >= threshold || ((c.flags & F.HasTable) !== 0 && c.textLen >= threshold)) &&
      !(c.flags & F.Negative) &&
      c.linkLen < c.textLen * SIBLING_MAX_LINK;
    // Beyond the root's own siblings only repeated structure is merged (posts of a thread, sections
    // of a page builder): a sibling of the same tag sharing a class with the branch holding the root.
    const near = cur === root;
    let merged = false;
    for (const c of parent.children) {
      if (typeof c === 'string' || c === cur || c.flags & F.Removed) continue;
      if (near ? carries(c) || (c.idx < cur.idx && nearProse(c, prose)) : carries(c) && alike(c, cur))
        merged = true;
    }
    if (merged) {
      for (const c of parent.children) {
        if (typeof c === 'string' || c === cur || c.flags & F.Removed) continue;
        if (carries(c) || siblingProse(c) || (near && c.idx < cur.idx && nearProse(c, prose))) continue;
        c.flags |= F.Removed;
      }
      root = parent;
      climbed = 0;
    } else climbed++;
    cur = parent;
  }
  return root;
}

/** A sibling of the root that is a paragraph or two of prose (a lead paragraph in its own wrapper). */
function nearProse(c: El, prose: Float64Array): boolean {
  return prose[c.idx] >= GOOD_TEXT && c.linkLen < c.textLen * 0.25 && !(c.flags & F.Negative);
}

function alike(a: El, b: El): boolean {
  if (a.tag !== b.tag) return false;
  const ca = rawAttr(a, 'class');
  const cb = rawAttr(b, 'class');
  if (ca === undefined || cb === undefined) return false;
  const set = new Set(cb.split(/\s+/));
  for (const t of ca.split(/\s+/)) if (t !== '' && set.has(t)) return true;
  return false;
}

/** A sibling kept beside merged content: a paragraph of prose not credited as a candidate. */
function siblingProse(el: El): boolean {
  if (el.textLen === 0) return true;
  const ld = el.linkLen / el.textLen;
  return !(el.flags & F.HasBlock) && ld < 0.25 && el.textLen >= GOOD_TEXT;
}

function isProse(b: Block): boolean {
  return b.kind === Kind.Short && b.sentence && b.link <= b.text * GOOD_MAX_LINK && b.text >= 30;
}

function isLeadIn(b: Block): boolean {
  if (isProse(b)) return true;
  const t = b.el.tag;
  return b.kind === Kind.Short && b.link === 0 && t.length === 2 && t.charCodeAt(0) === 104 && t !== 'h1';
}
