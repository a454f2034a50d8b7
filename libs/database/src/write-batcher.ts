interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Natural batching of writes: one write runs at a time and carries every item that arrived while
 * the previous one ran (up to `max` per write; the first waits one microtask, so items added in
 * the same tick share it). A lone item pays no extra latency; under load one statement and one
 * commit serve many. Each caller resolves once the write carrying its item succeeded, or rejects
 * with that write's error.
 */
export class WriteBatcher<T> {
  private readonly waiting: Waiting<T>[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly max: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        queueMicrotask(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.max);
        try {
          await this.write(batch.map((w) => w.item));
          for (const w of batch) w.resolve();
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
