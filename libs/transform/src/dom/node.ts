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

/** Shared empty child list; the parser assigns an exact-size array when an element has children. */
export const NO_CHILDREN: Child[] = Object.freeze([]) as unknown as Child[];

/**
 * A minimal element: text children are raw (still entity-encoded) source slices so that serialising
 * the cleaned HTML is a plain copy and decoding is paid only for what markdown actually renders.
 *
 * A plain object made by {@link newEl} (an object literal, not a class instance): V8 tracks where
 * literals are allocated and, seeing a page's elements survive, allocates them straight in the old
 * generation, so young-generation collections during a large page stop copying its tree.
 */
export interface El {
  readonly tag: string;
  /** Flat [name, rawValue, name, rawValue, ...]; names lower-cased. */
  readonly attrs: string[] | null;
  readonly parent: El | null;
  /** Pre-order index: document order comparisons. */
  readonly idx: number;
  /** `tagTraits(tag)`: parsing traits and markdown kind, looked up once. */
  readonly traits: number;
  children: Child[];
  flags: number;
  /** Characters of non-blank text in the subtree, and the part of it inside links. */
  textLen: number;
  linkLen: number;
  /** Text of removed descendants, filled in by the main-content filter. */
  removedLen: number;
}

export function newEl(
  tag: string,
  attrs: string[] | null,
  parent: El | null,
  idx: number,
  traits: number,
): El {
  return {
    tag,
    attrs,
    parent,
    idx,
    traits,
    children: NO_CHILDREN,
    flags: 0,
    textLen: 0,
    linkLen: 0,
    removedLen: 0,
  };
}

/** Raw (entity-encoded) attribute value, or undefined. */
export function rawAttr(el: El, name: string): string | undefined {
  const a = el.attrs;
  if (a === null) return undefined;
  for (let i = 0; i < a.length; i += 2) if (a[i] === name) return a[i + 1];
  return undefined;
}

/** Decoded attribute value, or undefined. */
export function attr(el: El, name: string): string | undefined {
  const v = rawAttr(el, name);
  return v === undefined || v.indexOf('&') === -1 ? v : decodeHTMLAttribute(v);
}

export function hasAttr(el: El, name: string): boolean {
  return rawAttr(el, name) !== undefined;
}

/** True when `el` is `ancestor` or inside it. */
export function isInside(el: El, ancestor: El): boolean {
  if (el === ancestor) return true;
  for (let p = el.parent; p !== null; p = p.parent) if (p === ancestor) return true;
  return false;
}

/** True when `el` or an ancestor carries `flag`. */
export function underFlag(el: El, flag: F): boolean {
  if (el.flags & flag) return true;
  for (let p = el.parent; p !== null; p = p.parent) if (p.flags & flag) return true;
  return false;
}

export function decodeText(raw: string): string {
  return raw.indexOf('&') === -1 ? raw : decodeHTML(raw);
}
