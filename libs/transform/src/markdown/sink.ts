import { escapeLineStart, finishInline, plainParagraph } from './text';

/**
 * Output buffer of one block container: running inline parts become a paragraph when a block starts.
 * In flat mode (headings, link text, table cells) blocks degrade to space-separated inline text.
 *
 * Finished blocks, their separators and the running paragraph share one array that is joined once at
 * the end: a paragraph that needs no rewriting (the common case) stays as its parts instead of being
 * joined into a string of its own and copied again by the final join.
 */
export class Sink {
  /** Finished output, then the running paragraph's inline parts (from `para` on). */
  inline: string[] = [];
  /** A `<br>` marker was pushed since the last paragraph (saves scanning every paragraph for one). */
  hasBr = false;
  /**
   * A part that may hold a double space (emphasis spanning several parts, a URL with spaces) was pushed
   * since the last paragraph: the paragraph gets the full rewrite.
   */
  spaces = false;
  /** Index in `inline` where the running paragraph starts. */
  private para = 0;
  /**
   * Index of the separator slot after the last finished block ('' until another block follows), or -1
   * before the first block.
   */
  private sep = -1;

  constructor(
    public flat = 0,
    /** List-item content: a nested list follows its text on the next line, not after a blank line. */
    private readonly tight = false,
  ) {}

  /** Block boundary: ends the current paragraph. */
  flush(): void {
    const inline = this.inline;
    if (inline.length === this.para) return;
    if (this.flat > 0) {
      inline.push(' ');
      return;
    }
    if (!this.hasBr && !this.spaces) {
      const kind = plainParagraph(inline, this.para);
      if (kind === 0) {
        // Nothing but empty parts: they stay (they add nothing to the output).
        this.para = inline.length;
        return;
      }
      if (kind === 1) {
        this.separate(false);
        inline.push('');
        this.sep = inline.length - 1;
        this.para = inline.length;
        return;
      }
    }
    const s = finishInline(inline.splice(this.para), this.hasBr);
    this.hasBr = false;
    this.spaces = false;
    if (s !== '') this.add(escapeLineStart(s), false);
  }

  push(block: string, isList = false): void {
    if (block === '') return;
    if (this.flat > 0) {
      this.inline.push(' ', block, ' ');
      return;
    }
    this.flush();
    this.add(block, isList);
  }

  /** Fills the separator slot before a new block. */
  private separate(isList: boolean): void {
    if (this.sep >= 0) this.inline[this.sep] = this.tight && isList ? '\n' : '\n\n';
  }

  private add(block: string, isList: boolean): void {
    this.separate(isList);
    this.inline.push(block, '');
    this.sep = this.inline.length - 1;
    this.para = this.inline.length;
  }

  join(): string {
    this.flush();
    const out = this.inline;
    if (this.sep === -1) return '';
    // A single block: [block, ''].
    return out.length === 2 ? out[0] : out.join('');
  }
}
