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
}

const table = new Map<string, number>();

function add(tags: string, bits: number): void {
  for (const t of tags.split(' ')) table.set(t, (table.get(t) ?? 0) | bits);
}

add('area base br col embed hr img input link meta param source track wbr keygen frame basefont bgsound', T.Void);
add(
  'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form ' +
    'h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section search summary table ul listing',
  T.Block | T.Special | T.ClosesP,
);
add('li dd dt tbody thead tfoot tr td th caption body html legend noscript option optgroup', T.Block | T.Special);
add('applet marquee object button', T.Special);
add('table td th caption html template applet marquee object', T.Scope);
// Whole subtrees that no output format keeps; skipping them in the tokenizer is also the big speed win.
add('script style noscript template svg math iframe noembed noframes xmp plaintext object', T.Skip);
add('title textarea', T.RawText);
add('head title textarea select datalist option optgroup input canvas video audio map area', T.NoMarkdown);

const EMPTY = 0;

export function tagTraits(tag: string): number {
  return table.get(tag) ?? EMPTY;
}
