import type { Passage } from './passage';

/** A section longer than this (characters) is cut at paragraph boundaries into several passages. */
export const MAX_PASSAGE_CHARS = 1000;
/** Sections shorter than this with no body of their own (a heading right before a sub-heading) are skipped. */
const MIN_BODY_CHARS = 1;

interface Section {
  trail: string[];
  slug: string;
  lines: string[];
  /** 1-based line number of the section's first line (its heading, or line 1). */
  start: number;
}

/**
 * Splits a markdown file into passages, one per heading section (ATX headings, `#`–`####`, outside
 * code fences), each cited by the heading's GitHub anchor. A long section is cut at blank lines into
 * parts cited by line range, so every citation points at text a reader can find.
 */
export function splitMarkdown(source: string, text: string): Passage[] {
  const slugger = new Slugger();
  const lines = text.split(/\r?\n/);
  const sections: Section[] = [];
  const trail: string[] = [];
  let current: Section = { trail: [], slug: '', lines: [], start: 1 };
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMark) {
      if (!fence) fence = fenceMark[1][0];
      else if (fenceMark[1][0] === fence) fence = undefined;
    }
    const heading = fence ? null : /^(#{1,4})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) {
      current.lines.push(line);
      return;
    }
    sections.push(current);
    const depth = heading[1].length;
    const title = plainHeading(heading[2]);
    trail.length = depth - 1;
    trail[depth - 1] = title;
    current = { trail: trail.filter(Boolean), slug: slugger.slug(title), lines: [line], start: i + 1 };
  });
  sections.push(current);

  const passages: Passage[] = [];
  for (const section of sections) {
    const body = section.lines.join('\n').trim();
    const ownText = section.lines
      .slice(section.slug ? 1 : 0)
      .join('\n')
      .trim();
    if (ownText.length < MIN_BODY_CHARS) continue;
    const title = section.trail.join(' › ') || source;
    const end = section.start + section.lines.length - 1;
    if (body.length <= MAX_PASSAGE_CHARS) {
      passages.push({
        source,
        ref: section.slug
          ? `${source}#${section.slug}`
          : `${source}#L${section.start}-L${lastTextLine(section)}`,
        title,
        body,
        lineStart: section.start,
        lineEnd: Math.min(end, lastTextLine(section)),
      });
      continue;
    }
    for (const part of cutAtParagraphs(section)) {
      passages.push({
        source,
        ref: `${source}#L${part.start}-L${part.end}`,
        title,
        body: part.text,
        lineStart: part.start,
        lineEnd: part.end,
      });
    }
  }
  return passages;
}

/**
 * GitHub's heading anchors: lower case, punctuation dropped, each space a hyphen, and a repeated
 * anchor suffixed `-1`, `-2`… in document order, so citations open at the heading on GitHub too.
 */
export class Slugger {
  private readonly seen = new Map<string, number>();

  slug(heading: string): string {
    const base = heading
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\s-]/gu, '')
      .replace(/\s/g, '-');
    const n = this.seen.get(base);
    this.seen.set(base, (n ?? -1) + 1);
    if (n === undefined) return base;
    let candidate = `${base}-${n + 1}`;
    while (this.seen.has(candidate)) candidate = `${candidate}-1`;
    this.seen.set(candidate, 0);
    return candidate;
  }
}

/** Heading text as a reader sees it: no inline code ticks, link targets or emphasis marks. */
function plainHeading(raw: string): string {
  return raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .trim();
}

function lastTextLine(section: Section): number {
  let last = section.lines.length - 1;
  while (last > 0 && !section.lines[last].trim()) last--;
  return section.start + last;
}

/** A part shorter than this at the end of a long section joins the part before it. */
const MIN_TAIL_CHARS = 300;

interface Block {
  /** 0-based line offsets in the section, inclusive. */
  from: number;
  to: number;
  /** Header lines repeated before the block's own lines (the head of a table cut into row groups). */
  prefix: string[];
}

/**
 * Parts of about MAX_PASSAGE_CHARS, cut between paragraphs, code blocks and list runs (a code block
 * stays whole); a long table is cut between rows with its header repeated in every part, so each
 * part of an environment table still says what its columns mean.
 */
function cutAtParagraphs(section: Section): { start: number; end: number; text: string }[] {
  const blocks = toBlocks(section.lines);
  const parts: { start: number; end: number; text: string }[] = [];
  let group: Block[] = [];
  let size = 0;
  const flush = () => {
    if (!group.length) return;
    const text = group
      .map((b) => [...b.prefix, ...section.lines.slice(b.from, b.to + 1)].join('\n'))
      .join('\n\n')
      .trim();
    parts.push({
      start: section.start + group[0].from,
      end: section.start + group[group.length - 1].to,
      text,
    });
    group = [];
    size = 0;
  };
  for (const b of blocks) {
    const len = [...b.prefix, ...section.lines.slice(b.from, b.to + 1)].join('\n').length + 2;
    if (size > 0 && size + len > MAX_PASSAGE_CHARS) flush();
    group.push(b);
    size += len;
  }
  flush();
  const last = parts[parts.length - 1];
  if (parts.length > 1 && last.text.length < MIN_TAIL_CHARS) {
    parts.pop();
    const prev = parts[parts.length - 1];
    prev.text = `${prev.text}\n\n${last.text}`;
    prev.end = last.end;
  }
  return parts;
}

function toBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i].trim()) {
      i++;
      continue;
    }
    const from = i;
    if (/^\s{0,3}(`{3,}|~{3,})/.test(lines[i])) {
      const mark = lines[i].trim()[0];
      i++;
      while (i < lines.length && !(/^\s{0,3}(`{3,}|~{3,})/.test(lines[i]) && lines[i].trim()[0] === mark))
        i++;
      blocks.push({ from, to: Math.min(i, lines.length - 1), prefix: [] });
      i++;
      continue;
    }
    if (/^\s*\|/.test(lines[i])) {
      while (i < lines.length && /^\s*\|/.test(lines[i])) i++;
      const to = i - 1;
      const hasHead = to - from >= 2 && /^\s*\|[\s:|-]+\|?\s*$/.test(lines[from + 1]);
      if (!hasHead) {
        blocks.push({ from, to, prefix: [] });
        continue;
      }
      const head = [lines[from], lines[from + 1]];
      let rowFrom = from;
      let size = head.join('\n').length;
      for (let r = from + 2; r <= to; r++) {
        if (size + lines[r].length > MAX_PASSAGE_CHARS * 0.9 && r > rowFrom + 2) {
          blocks.push({ from: rowFrom, to: r - 1, prefix: rowFrom === from ? [] : head });
          rowFrom = r;
          size = head.join('\n').length;
        }
        size += lines[r].length + 1;
      }
      blocks.push({ from: rowFrom, to, prefix: rowFrom === from ? [] : head });
      continue;
    }
    while (
      i < lines.length &&
      lines[i].trim() &&
      !/^\s{0,3}(`{3,}|~{3,})/.test(lines[i]) &&
      !/^\s*\|/.test(lines[i])
    )
      i++;
    // A long list is cut between its top-level items.
    let itemFrom = from;
    let size = 0;
    for (let r = from; r < i; r++) {
      if (
        r > itemFrom &&
        /^([-*+]|\d+[.)])\s/.test(lines[r]) &&
        size + lines[r].length > MAX_PASSAGE_CHARS * 0.9
      ) {
        blocks.push({ from: itemFrom, to: r - 1, prefix: [] });
        itemFrom = r;
        size = 0;
      }
      size += lines[r].length + 1;
    }
    blocks.push({ from: itemFrom, to: i - 1, prefix: [] });
  }
  return blocks;
}
