/**
 * Lower-cased names of known tags/attributes looked up straight from the source text by a hash
 * computed while scanning, so the hot path allocates no substring and hashes no fresh string.
 */
export class NameTable {
  private readonly names: (string | undefined)[];
  private readonly values: Int32Array;
  private readonly mask: number;
  /** `valueOf` of the name returned by the last {@link get}. */
  value = 0;

  constructor(
    names: Iterable<string>,
    private readonly valueOf: (name: string) => number = () => 0,
    size = 2048,
  ) {
    this.names = new Array<string | undefined>(size);
    this.values = new Int32Array(size);
    this.mask = size - 1;
    for (const name of names) {
      let h = 0;
      for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + (name.charCodeAt(i) | 0x20)) | 0;
      let slot = h & this.mask;
      while (this.names[slot] !== undefined && this.names[slot] !== name) slot = (slot + 1) & this.mask;
      this.names[slot] = name;
      this.values[slot] = valueOf(name);
    }
  }

  /**
   * The known lower-case name equal (ASCII case-insensitively) to src[start, end), else a new string;
   * its value is left in {@link value} (saves the tokenizer a second lookup for the tag's traits).
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
        if (k === len) {
          this.value = this.values[slot];
          return cand;
        }
      }
      slot = (slot + 1) & this.mask;
    }
    const name = src.slice(start, end).toLowerCase();
    this.value = this.valueOf(name);
    return name;
  }
}
