import { escapeLineStart, finishInline } from './text';

/**
 * Output buffer of one block container: running inline parts become a paragraph when a block starts.
 * In flat mode (headings, link text, table cells) blocks degrade to space-separated inline text.
 */
export class Sink {
  readonly inline: string[] = [];
  private readonly blocks: string[] = [];
  private readonly lists: boolean[] = [];

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
    const s = finishInline(this.inline);
    this.inline.length = 0;
    if (s !== '') {
      this.blocks.push(escapeLineStart(s));
      this.lists.push(false);
    }
  }

  push(block: string, isList = false): void {
    if (block === '') return;
    if (this.flat > 0) {
      this.inline.push(' ', block, ' ');
      return;
    }
    this.flush();
    this.blocks.push(block);
    this.lists.push(isList);
  }

  join(): string {
    this.flush();
    const b = this.blocks;
    if (b.length === 0) return '';
    let out = b[0];
    for (let i = 1; i < b.length; i++) out += (this.tight && this.lists[i] ? '\n' : '\n\n') + b[i];
    return out;
  }
}
