import { decodeHTML, decodeHTMLAttribute } from 'entities';

/** Bit flags on {@link El}; kept as one number so the tree stays cheap to build. */
export const enum F {
  /** Dropped from markdown/html output (boilerplate, excludeTags). */
  Removed = 1,
  /** A main/article element or one of its ancestors: never removed by the main-content filter. */
  Keep = 2,
  /** The element is block-level for markdown purposes. */
  Block = 4,
  /** A descendant is block-level (an inline element wrapping blocks is rendered as a container). */
  HasBlock = 8,
  /** A descendant is a table (tables containing tables are layout tables). */
  HasTable = 16,
  /** A descendant is an h1. */
  HasH1 = 32,
  /** Named like a non-content container (comments, related, byline...): set by the content scorer. */
  Negative = 64,
}

export type Child = El | string;

/**
 * A minimal element: text children are raw (still entity-encoded) source slices so that serialising
 * the cleaned HTML is a plain copy and decoding is paid only for what markdown actually renders.
 */
/** Shared empty child list; the parser assigns an exact-size array when an element has children. */
export const NO_CHILDREN: Child[] = Object.freeze([]) as unknown as Child[];

export class El {
  children: Child[] = NO_CHILDREN;
  flags = 0;
  /** Characters of non-blank text in the subtree, and the part of it inside links. */
  textLen = 0;
  linkLen = 0;
  /** Text of removed descendants, filled in by the main-content filter. */
  removedLen = 0;

  constructor(
    readonly tag: string,
    /** Flat [name, rawValue, name, rawValue, ...]; names lower-cased. */
    readonly attrs: string[] | null,
    readonly parent: El | null,
    /** Pre-order index: document order comparisons. */
    readonly idx: number,
    /** `tagTraits(tag)`: parsing traits and markdown kind, looked up once. */
    readonly traits: number,
  ) {}

  /** Raw (entity-encoded) attribute value, or undefined. */
  rawAttr(name: string): string | undefined {
    const a = this.attrs;
    if (a === null) return undefined;
    for (let i = 0; i < a.length; i += 2) if (a[i] === name) return a[i + 1];
    return undefined;
  }

  /** Decoded attribute value, or undefined. */
  attr(name: string): string | undefined {
    const v = this.rawAttr(name);
    return v === undefined || v.indexOf('&') === -1 ? v : decodeHTMLAttribute(v);
  }

  hasAttr(name: string): boolean {
    return this.rawAttr(name) !== undefined;
  }

  isInside(ancestor: El): boolean {
    if (this === ancestor) return true;
    for (let p = this.parent; p !== null; p = p.parent) if (p === ancestor) return true;
    return false;
  }

  /** True when this element or an ancestor carries `flag`. */
  underFlag(flag: F): boolean {
    if (this.flags & flag) return true;
    for (let p = this.parent; p !== null; p = p.parent) if (p.flags & flag) return true;
    return false;
  }
}

export function decodeText(raw: string): string {
  return raw.indexOf('&') === -1 ? raw : decodeHTML(raw);
}
