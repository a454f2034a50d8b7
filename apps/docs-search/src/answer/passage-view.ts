import { sentences, terms } from './extractive';

/** Passages shown whole (up to `WHOLE_CHARS`); those ranked after them are shown as excerpts. */
const WHOLE = 3;
const WHOLE_CHARS = 1200;
const EXCERPT_CHARS = 350;

/**
 * Characters of a passage shown to the model, by its rank (0-based): the best three whole (up to
 * 1,200 characters, what fits a small model's context three times over), further ones as a short
 * excerpt (`passageView`), so more candidates fit in a prompt of about the same length.
 */
export function viewChars(rank: number): number {
  return rank < WHOLE ? WHOLE_CHARS : EXCERPT_CHARS;
}

/**
 * A markdown body's blocks, in order: paragraphs, list items (with their continuation lines),
 * table rows, and fenced code blocks whole. `sentences()` of each block, concatenated, are the
 * body's sentences (so a passage's sentence vectors map onto them).
 */
export function blocks(body: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fence = false;
  const flush = () => {
    if (current.length) out.push(current.join('\n'));
    current = [];
  };
  for (const line of body.split('\n')) {
    if (fence) {
      current.push(line);
      if (/^\s*```/.test(line)) {
        fence = false;
        flush();
      }
      continue;
    }
    if (/^\s*```/.test(line)) {
      flush();
      current.push(line);
      fence = true;
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    // A list item, table row or heading starts a block; an indented line continues a list item.
    if (/^(\s{0,3}([-*+]|\d+[.)])\s|\s*\||#+\s)/.test(line)) flush();
    current.push(line);
    if (/^\s*\|/.test(line) || /^#+\s/.test(line)) flush();
  }
  flush();
  return out;
}

/**
 * What the model is shown of a passage: the whole body when it fits in `chars`; otherwise the
 * blocks (paragraphs, list items, table rows) that match the question best, in document order,
 * with "…" where blocks were left out. A block's match is the best of its sentences' by `focus`
 * (the question's cosine with each sentence of the body, as the index embedded them) when given
 * for every sentence, by content words shared with the question otherwise. A table row comes with
 * the table's header row; a best block longer than the room is cut. A long section states the
 * answer in one row or paragraph, which its first `chars` characters may not reach.
 */
export function passageView(
  body: string,
  question: string,
  focus: readonly number[] | undefined,
  chars: number,
): string {
  if (body.length <= chars) return body;
  const parts = blocks(body);
  const units = parts.map((b) => sentences(b));
  const total = units.reduce((n, u) => n + u.length, 0);
  const wanted = new Set(terms(question));
  const lexical = (s: string) => new Set(terms(s).filter((t) => wanted.has(t))).size;
  let k = 0;
  const score = units.map((u) => {
    if (focus && focus.length === total) {
      const best = u.length ? Math.max(...focus.slice(k, k + u.length)) : -Infinity;
      k += u.length;
      return best;
    }
    return u.length ? Math.max(...u.map(lexical)) : -Infinity;
  });
  const isRow = (i: number) => /^\s*\|/.test(parts[i]);
  const headerOf = (i: number) => {
    let h = i;
    while (h > 0 && isRow(h - 1)) h--;
    return h < i ? h : undefined;
  };
  const order = parts
    .map((_, i) => i)
    .filter((i) => score[i] > -Infinity)
    .sort((a, b) => score[b] - score[a] || a - b);
  const best = order[0];
  if (best === undefined) return `${body.slice(0, chars)}…`;
  // The best block alone fills the room: as much of it as fits.
  if (parts[best].length + 3 > chars) return `${best > 0 ? '…\n' : ''}${parts[best].slice(0, chars - 4)}…`;
  const picked = new Set<number>();
  let size = 0;
  for (const i of order) {
    const extra = [i];
    const h = isRow(i) ? headerOf(i) : undefined;
    if (h !== undefined && !picked.has(h)) extra.unshift(h, h + 1);
    let add = [...new Set(extra)].filter((j) => !picked.has(j));
    const cost = (js: number[]) => js.reduce((n, j) => n + parts[j].length + 3, 0);
    // Without the header when both do not fit.
    if (size + cost(add) > chars) add = [i];
    if (size + cost(add) > chars) continue;
    add.forEach((j) => picked.add(j));
    size += cost(add);
  }
  const kept = [...picked].sort((a, b) => a - b);
  let out = kept[0] > 0 ? '…\n' : '';
  kept.forEach((i, j) => {
    if (j > 0) out += i === kept[j - 1] + 1 ? '\n' : '\n…\n';
    out += parts[i];
  });
  return kept[kept.length - 1] < parts.length - 1 ? `${out}\n…` : out;
}
