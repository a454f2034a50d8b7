/**
 * Lower-cased names of known tags/attributes looked up straight from the source text by a hash
 * computed while scanning, so the hot path allocates no substring and hashes no fresh string.
 */
export class NameTable {
  private readonly names: (string | undefined)[];
  private readonly mask: number;

  constructor(names: Iterable<string>, size = 2048) {
    this.names = new Array<string | undefined>(size);
    this.mask = size - 1;
    for (const name of names) {
      let h = 0;
      for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + (name.charCodeAt(i) | 0x20)) | 0;
      let slot = h & this.mask;
      while (this.names[slot] !== undefined && this.names[slot] !== name) slot = (slot + 1) & this.mask;
      this.names[slot] = name;
    }
  }

  /**
   * The known lower-case name equal (ASCII case-insensitively) to src[start, end), else a new string.
   * `hash` is `h = imul(h, 31) + (code | 0x20)` over the chars, as the tokenizer computes it inline.
   */
  get(src: string, start: number, end: number, hash: number): string {
    const len = end - start;
    let slot = hash & this.mask;
    for (;;) {
      const cand = this.names[slot];
      if (cand === undefined) break;
      if (cand.length === len) {
        let k = 0;
        while (k < len && (src.charCodeAt(start + k) | 0x20) === cand.charCodeAt(k)) k++;
        if (k === len) return cand;
      }
      slot = (slot + 1) & this.mask;
    }
    return src.slice(start, end).toLowerCase();
  }
}
