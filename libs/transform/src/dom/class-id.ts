/**
 * The text an element's class and id are matched as: the class, the id, or both separated by a
 * space (undefined when it has neither).
 */
export function classAndId(cls: string | undefined, id: string | undefined): string | undefined {
  return cls === undefined ? id : id === undefined ? cls : `${cls} ${id}`;
}

/**
 * A per-page memo of what a class/id value means to one rule: a page repeats a few values on
 * thousands of elements, so each is tested against the rule's patterns once.
 */
export class ClassIdMemo<T> {
  private readonly seen = new Map<string, T>();

  constructor(private readonly compute: (value: string) => T) {}

  of(value: string): T {
    let v = this.seen.get(value);
    if (v === undefined) {
      v = this.compute(value);
      this.seen.set(value, v);
    }
    return v;
  }
}
