/** Per-tag traits used by the tree builder and the renderers, looked up once per element. */
export const enum T {
  Void = 1,
  /** Block-level for markdown: flushes the current paragraph. */
  Block = 2,
  /** "Special" in the HTML parsing sense: inline end tags do not cross it. */
  Special = 4,
  /** Its start tag closes an open `<p>`. */
  ClosesP = 8,
  /** Content is skipped entirely (never part of any output). */
  Skip = 16,
  /** Content is raw text up to the matching end tag (kept as one text child). */
  RawText = 32,
  /** Boundary for scope searches of end tags and implied closes. */
  Scope = 64,
  /** Never rendered to markdown (but kept in the tree, e.g. for the cleaned HTML). */
  NoMarkdown = 128,
  /** Its start tag may imply closing open elements (li, td, ...): the tree builder looks closer. */
  Implies = 256,
  /** Collected into the parsed document's lists (links, images, metas, ...). */
  Collect = 512,
  /** Tracked by the tree builder when it closes (table, h1, a, p, pre). */
  Track = 1024,
  /** Boilerplate by tag for the main-content filter (nav, aside, page header/footer, ...). */
  BoilerplateTag = 2048,
  /** Never boilerplate by itself (inline text-level tags, headings, document roots). */
  NotBoilerplate = 4096,
}

/** Markdown handler of a tag, stored above the trait bits (`traits >> KIND_SHIFT`). */
export const enum K {
  Other = 0,
  Heading,
  Pre,
  List,
  ListItem,
  Blockquote,
  Table,
  DefinitionList,
  Hr,
  Br,
  Img,
  Link,
  Strong,
  Em,
  Del,
  Code,
  Input,
}

export const KIND_SHIFT = 16;

const table = new Map<string, number>();

function add(tags: string, bits: number): void {
  for (const t of tags.split(' ')) table.set(t, (table.get(t) ?? 0) | bits);
}

add(
  'area base br col embed hr img input link meta param source track wbr keygen frame basefont bgsound',
  T.Void,
);
add(
  'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form ' +
    'h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section search summary table ul listing',
  T.Block | T.Special | T.ClosesP,
);
add(
  'li dd dt tbody thead tfoot tr td th caption body html legend noscript option optgroup',
  T.Block | T.Special,
);
add('applet marquee object button', T.Special);
add('table td th caption html template applet marquee object', T.Scope);
// Whole subtrees that no output format keeps; skipping them in the tokenizer is also the big speed win.
add('script style noscript template svg math iframe noembed noframes xmp plaintext object', T.Skip);
add('title textarea', T.RawText);
add('head title textarea select datalist option optgroup input canvas video audio map area', T.NoMarkdown);

add('html body li dd dt tr td th thead tbody tfoot option optgroup a h1 h2 h3 h4 h5 h6', T.Implies);
add('a area img source meta link base html body', T.Collect);
add('table h1 a p pre listing textarea', T.Track);
add('nav aside dialog search button header footer', T.BoilerplateTag);
add(
  'a span b strong em i img code pre h1 h2 h3 br html body abbr sup sub small time label mark q s u kbd ' +
    'cite dfn var samp del ins wbr source picture',
  T.NotBoilerplate,
);

function kind(tags: string, k: K): void {
  add(tags, k << KIND_SHIFT);
}

kind('h1 h2 h3 h4 h5 h6', K.Heading);
kind('pre listing', K.Pre);
kind('ul ol menu dir', K.List);
kind('li', K.ListItem);
kind('blockquote', K.Blockquote);
kind('table', K.Table);
kind('dl', K.DefinitionList);
kind('hr', K.Hr);
kind('br', K.Br);
kind('img', K.Img);
kind('a', K.Link);
kind('strong b', K.Strong);
kind('em i cite dfn var', K.Em);
kind('del s strike', K.Del);
kind('code kbd samp tt', K.Code);
kind('input', K.Input);

const EMPTY = 0;

const OTHER_TAGS =
  'a abbr b bdi bdo cite code data del dfn em font i ins kbd label mark picture q rp rt ruby s samp small ' +
  'span strong sub sup time u var big nobr';

/** Every tag name with known traits plus common inline tags (for the tokenizer's name table). */
export const KNOWN_TAGS: readonly string[] = [...table.keys(), ...OTHER_TAGS.split(' ')];

export const KNOWN_ATTRIBUTES: readonly string[] = (
  'class id href src alt title rel role type name content property itemprop http-equiv charset style ' +
  'width height lang dir target srcset sizes loading decoding data-src data-srcset data-lazy-src ' +
  'data-original aria-label aria-hidden aria-modal aria-labelledby aria-describedby aria-expanded ' +
  'aria-current tabindex hidden value action method for colspan rowspan scope start datetime ' +
  'itemscope itemtype data-id data-testid media async defer crossorigin integrity xmlns viewbox fill ' +
  'd checked disabled placeholder autocomplete onclick valign align border cellpadding cellspacing bgcolor'
).split(' ');

export function tagTraits(tag: string): number {
  return table.get(tag) ?? EMPTY;
}
