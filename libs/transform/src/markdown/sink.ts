import { escapeLineStart, finishInline } from './text';

/**
 * Output buffer of one block container: running inline parts become a paragraph when a block starts.
 * In flat mode (headings, link text, table cells) blocks degrade to space-separated inline text.
 */
export class Sink {
  inline: string[] = [];
  /** A `<br>` marker was pushed since the last paragraph (saves scanning every paragraph for one). */
  hasBr = false;
  /** Finished blocks and their separators, joined once at the end. */
  private out: string[] | null = null;

  constructor(
    public flat = 0,
    /** List-item content: a nested list follows its text on the next line, not after a blank line. */
    private readonly tight = false,
  ) {}

  /** Block boundary: ends the current paragraph. */
  flush(): void {
    if (this.inline.length === 0) return;
    if (this.flat > 0) {
      this.inline.push(' ');
      return;
    }
    const s = finishInline(this.inline, this.hasBr);
    this.inline = [];
    this.hasBr = false;
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

  private add(block: string, isList: boolean): void {
    if (this.out === null) this.out = [block];
    else this.out.push(this.tight && isList ? '\n' : '\n\n', block);
  }

  join(): string {
    this.flush();
    const out = this.out;
    if (out === null) return '';
    return out.length === 1 ? out[0] : out.join('');
  }
}
