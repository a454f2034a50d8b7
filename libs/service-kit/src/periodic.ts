import type { Logger } from '@wds/observability';

export interface PeriodicOptions<T> {
  /** Time between the starts of two runs. */
  everyMs: number;
  /** The work; its failure is logged and the next tick tries again. */
  run: () => Promise<T>;
  logger: Pick<Logger, 'warn'>;
  /** Names the work in the failure's log line ("<what> failed"). */
  what: string;
}

/**
 * Work a replica repeats on a timer (purges, sweeps, maintenance), the same way everywhere: one run
 * at a time (a tick or a `runOnce()` while a run is in progress joins it instead of starting a
 * second), failures logged, a timer that never keeps the process alive, and `stop()` that waits for
 * the run in progress, so shutdown does not close the database under it.
 */
export class Periodic<T = void> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;

  constructor(private readonly opts: PeriodicOptions<T>) {}

  /** Runs every `everyMs` from now on; `now`: once at once too. Starting twice is a no-op. */
  start(opts: { now?: boolean } = {}): void {
    if (this.timer) return;
    const tick = () => {
      this.runOnce().catch((err: unknown) => this.opts.logger.warn({ err }, `${this.opts.what} failed`));
    };
    this.timer = setInterval(tick, this.opts.everyMs);
    this.timer.unref();
    if (opts.now) tick();
  }

  /** One run now, or the one in progress. */
  runOnce(): Promise<T> {
    this.running ??= this.opts.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** No more ticks; resolves once the run in progress (if any) has ended, however it ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
