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
 * Elements come from a per-thread pool ({@link newEl}, {@link releaseElements}): a large page's tree
 * lives through several young-generation collections, and V8 does not pretenure these objects (its
 * allocation-site feedback stays "undecided" for them), so each scavenge used to copy the whole tree
 * again. Pooled elements live in the old generation and are reused field by field by the next page.
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

type PooledEl = { -readonly [K in keyof El]: El[K] };

/**
 * Elements kept for reuse in this thread (each thread, a worker too, has its own module state). At
 * most {@link POOL_MAX} (~3.4 MB; a 2 MB article has ~21,000 elements): a larger page's further
 * elements are ordinary allocations.
 */
const pool: PooledEl[] = [];
/** Pooled elements in use: `pool[0, inUse)` belong to trees that are still alive. */
let inUse = 0;
const POOL_MAX = 32_768;

function literal(
  tag: string,
  attrs: string[] | null,
  parent: El | null,
  idx: number,
  traits: number,
): PooledEl {
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

export function newEl(
  tag: string,
  attrs: string[] | null,
  parent: El | null,
  idx: number,
  traits: number,
): El {
  if (inUse < pool.length) {
    const el = pool[inUse++];
    el.tag = tag;
    el.attrs = attrs;
    el.parent = parent;
    el.idx = idx;
    el.traits = traits;
    el.children = NO_CHILDREN;
    el.flags = 0;
    el.textLen = 0;
    el.linkLen = 0;
    el.removedLen = 0;
    return el;
  }
  const el = literal(tag, attrs, parent, idx, traits);
  if (pool.length < POOL_MAX) {
    pool.push(el);
    inUse++;
  }
  return el;
}

/** A mark to pass to {@link releaseElements} once every tree parsed after it is done with. */
export function elementMark(): number {
  return inUse;
}

/**
 * Returns the pooled elements taken since `mark` for reuse, dropping what they refer to (the page's
 * attribute values and text stay collectable). Trees parsed since `mark` must not be used afterwards.
 */
export function releaseElements(mark: number): void {
  for (let i = mark; i < inUse; i++) {
    const el = pool[i];
    el.tag = '';
    el.attrs = null;
    el.parent = null;
    el.children = NO_CHILDREN;
  }
  inUse = mark;
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
