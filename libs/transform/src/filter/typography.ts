import { El, F } from '../dom/node';
import { T } from '../dom/tags';

// Typographic cues the content scorer reads: small print, emphasis and thematic breaks set text apart
// from the body of a page.

// Small print: an inline font size of at most 11px (or x-small and below) sets text apart from the body.
const FONT_SIZE = /(?:^|;)\s*font-size\s*:\s*(?:(\d+(?:\.\d+)?)px|(xx?-small))/i;

export function isSmallPrint(style: string): boolean {
  const m = FONT_SIZE.exec(style);
  return m !== null && (m[2] !== undefined || Number(m[1]) <= 11);
}

/** True when all of `el`'s text outside links is inside em/i/strong/b (and there is some). */
export function emphasised(el: El): boolean {
  const acc = [0, 0];
  emphasisText(el, false, false, acc);
  return acc[0] > 0 && acc[1] <= acc[0] * 0.05;
}

/** Adds `el`'s text inside emphasis to acc[0] and its plain text outside links to acc[1]. */
function emphasisText(el: El, em: boolean, link: boolean, acc: number[]): void {
  for (const c of el.children) {
    if (typeof c === 'string') {
      if (c.length <= 1) continue;
      if (em) acc[0] += c.trim().length;
      else if (!link) acc[1] += c.trim().length;
    } else if (!(c.flags & F.Removed)) {
      const t = c.tag;
      emphasisText(c, em || t === 'em' || t === 'i' || t === 'strong' || t === 'b', link || t === 'a', acc);
    }
  }
}

/** True when the first thing in `el` is a thematic break (`<hr>`): end matter set apart from the text. */
export function opensWithRule(el: El): boolean {
  let e: El = el;
  for (;;) {
    let next: El | null = null;
    for (const c of e.children) {
      if (typeof c === 'string') {
        if (c.trim() !== '') return false;
        continue;
      }
      if (c.flags & F.Removed || c.traits & T.NoMarkdown) continue;
      next = c;
      break;
    }
    if (next === null) return false;
    if (next.tag === 'hr') return true;
    e = next;
  }
}
