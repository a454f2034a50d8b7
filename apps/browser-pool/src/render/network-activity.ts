/** Requests of one page in flight, and a wait for the network to go quiet (event driven, no polling). */
export class NetworkActivity {
  private inflight = 0;
  private changed: (() => void)[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  started(): void {
    this.inflight++;
    this.notify();
  }

  ended(): void {
    this.inflight = Math.max(0, this.inflight - 1);
    this.notify();
  }

  get inFlight(): number {
    return this.inflight;
  }

  /**
   * Resolves once no request has been in flight for `quietMs`, or after `capMs` whatever the page does.
   * Every request that starts restarts the quiet period.
   */
  waitForQuiet(quietMs: number, capMs: number): Promise<void> {
    return new Promise((resolve) => {
      const until = this.now() + Math.max(0, capMs);
      let quietTimer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(capTimer);
        clearTimeout(quietTimer);
        this.changed = this.changed.filter((f) => f !== onChange);
        resolve();
      };
      const onChange = () => {
        clearTimeout(quietTimer);
        quietTimer = undefined;
        if (this.inflight === 0) {
          quietTimer = setTimeout(done, Math.max(0, Math.min(quietMs, until - this.now())));
        }
      };
      const capTimer = setTimeout(done, Math.max(0, capMs));
      this.changed.push(onChange);
      onChange();
    });
  }

  private notify(): void {
    for (const f of [...this.changed]) f();
  }
}
