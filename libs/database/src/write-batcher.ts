interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface WriteBatcherOptions<T> {
  /** Items per write at most. */
  max: number;
  /** With `weight`: a write carries items up to this total weight (always at least one item). */
  maxWeight?: number;
  /** The weight of an item (e.g. its bytes), for `maxWeight`. */
  weight?: (item: T) => number;
  /**
   * When a write of several items fails, write each of them alone, so one bad item fails only its
   * own caller (without it, every caller in the batch gets the batch's error).
   */
  isolateFailures?: boolean;
  /** Called each time the queue runs empty (e.g. to drop a per-key batcher). */
  onIdle?: () => void;
}

/**
 * Natural batching of writes: one write runs at a time and carries every item that arrived while
 * the previous one ran (up to `max` per write; the first waits one microtask, so items added in
 * the same tick share it). A lone item pays no extra latency; under load one statement and one
 * commit serve many. Each caller resolves once the write carrying its item succeeded (with its own
 * entry of the write's results, when the write returns results in item order), or rejects with that
 * write's error.
 */
export class WriteBatcher<T, R = void> {
  private readonly waiting: Waiting<T, R>[] = [];
  private writing = false;
  private readonly opts: WriteBatcherOptions<T>;

  constructor(
    private readonly write: (items: T[]) => Promise<R[] | void>,
    max: number | WriteBatcherOptions<T>,
  ) {
    this.opts = typeof max === 'number' ? { max } : max;
  }

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        queueMicrotask(() => void this.drain());
      }
    });
  }

  /** Items waiting for a write (the one running excluded). */
  get backlog(): number {
    return this.waiting.length;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.take());
        try {
          await this.run(batch);
        } catch (err) {
          if (!this.opts.isolateFailures || batch.length === 1) {
            for (const w of batch) w.reject(err);
            continue;
          }
          for (const w of batch) {
            try {
              await this.run([w]);
            } catch (alone) {
              w.reject(alone);
            }
          }
        }
      }
    } finally {
      this.writing = false;
      this.opts.onIdle?.();
    }
  }

  private async run(batch: Waiting<T, R>[]): Promise<void> {
    const results = await this.write(batch.map((w) => w.item));
    batch.forEach((w, i) => w.resolve((results ? results[i] : undefined) as R));
  }

  /** How many waiting items the next write carries. */
  private take(): number {
    const { max, maxWeight, weight } = this.opts;
    const n = Math.min(max, this.waiting.length);
    if (maxWeight === undefined || !weight) return n;
    let total = 0;
    for (let i = 0; i < n; i++) {
      total += weight(this.waiting[i].item);
      if (total > maxWeight) return Math.max(1, i);
    }
    return n;
  }
}
