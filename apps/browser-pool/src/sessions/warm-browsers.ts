import type { Logger } from '@wds/observability';
import type { SessionBrowser } from '../sandbox/session-browser';
import type { SessionDirs, SessionRuntimes } from './session-runtimes';

/**
 * A session's browser started ahead of its session: launched exactly as a session's (its own slot,
 * so its own sandbox uid, and its own empty profile directory under the future session's id), with
 * the runtimes made for that browser alone (WDS_SESSION_WARM_RUNTIMES started in them, connected
 * to its CDP endpoint). Browser and runtimes are handed out, and discarded, together.
 */
export interface WarmBrowser {
  id: string;
  slot: number;
  dirs: SessionDirs;
  browser: SessionBrowser;
  /** Absent only in tests of this class (the session manager always makes them). */
  runtimes?: SessionRuntimes;
  /** The runtimes started ahead; the warm browser is ready to hand out before they are. */
  runtimesStarted?: Promise<void>;
}

export interface WarmBrowserHooks {
  /** Starts one (taking a free slot); undefined when no slot is free. */
  launch(): Promise<WarmBrowser | undefined>;
  /** Closes one that will never serve a session and gives its slot and directories back. */
  discard(warm: WarmBrowser): Promise<void>;
}

/** After a failed start, the next attempt waits this long (a broken host must not spin). */
const RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * A few ready session browsers per replica (WDS_SESSION_WARM_BROWSERS), so that a create skips the
 * Chromium start. Each is handed out once and refilled in the background; a browser that served a
 * session is never put back. One that dies while waiting is discarded and replaced.
 */
export class WarmBrowsers {
  private readonly ready: WarmBrowser[] = [];
  /** Waiting ones whose browser or a started runtime went away (discarded, never handed out). */
  private readonly broken = new WeakSet<WarmBrowser>();
  private readonly waiters: (() => void)[] = [];
  private starting = 0;
  private closed = false;
  private retryTimer?: NodeJS.Timeout;

  constructor(
    private readonly size: number,
    private readonly hooks: WarmBrowserHooks,
    private readonly logger: Logger,
  ) {}

  get available(): number {
    return this.ready.length;
  }

  /** Browsers being started right now (their slots are taken). */
  get inFlight(): number {
    return this.starting;
  }

  /** A ready browser, taken out of the pool for good (a refill starts), or undefined. */
  take(): WarmBrowser | undefined {
    let warm = this.ready.shift();
    // One whose browser or runtime just went away (its exit not handled yet) is discarded, not handed out.
    while (warm && (this.broken.has(warm) || !warm.browser.browser.isConnected())) {
      void this.hooks.discard(warm);
      warm = this.ready.shift();
    }
    this.fill();
    return warm;
  }

  /** Resolves once a start in flight has finished (ready or failed); at once when none is. */
  whenStarted(): Promise<void> {
    if (this.starting === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Starts one more browser unless `size` are ready, one is starting or no slot is free. One start at
   * a time: a start takes a core for about a second, and the sessions in use come first.
   */
  fill(): void {
    if (this.closed || this.retryTimer || this.starting > 0 || this.ready.length >= this.size) return;
    this.starting++;
    void this.startOne().then((more) => {
      this.starting--;
      for (const w of this.waiters.splice(0)) w();
      if (more) this.fill();
    });
  }

  /** Closes every waiting browser; nothing is started afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await Promise.allSettled(this.ready.splice(0).map((w) => this.hooks.discard(w)));
  }

  /** Whether filling should go on. */
  private async startOne(): Promise<boolean> {
    let warm: WarmBrowser | undefined;
    try {
      warm = await this.hooks.launch();
    } catch (err) {
      this.logger.warn({ err }, 'starting a warm session browser failed');
      this.retryLater();
      return false;
    }
    if (!warm) return false;
    if (this.closed) {
      await this.hooks.discard(warm);
      return false;
    }
    this.ready.push(warm);
    const lost = (what: string) => {
      if (this.broken.has(warm)) return;
      const at = this.ready.indexOf(warm);
      if (at < 0) return; // taken by a session, which watches it itself
      this.broken.add(warm);
      this.ready.splice(at, 1);
      this.logger.warn({ slot: warm.slot }, `a warm session ${what} exited while waiting`);
      void this.hooks.discard(warm).finally(() => this.fill());
    };
    void warm.browser.exited.then(() => lost('browser'));
    if (warm.runtimesStarted) {
      // Ready to hand out now; the next start waits for its runtimes (one start at a time).
      const started = await warm.runtimesStarted.then(
        () => true,
        (err: unknown) => {
          this.logger.warn({ err, slot: warm.slot }, 'starting a warm session runtime failed');
          return false;
        },
      );
      if (!started) {
        // A host where runtimes cannot start must not relaunch browsers in a loop.
        this.retryLater();
        lost('runtime');
        return false;
      }
      if (this.ready.includes(warm)) void warm.runtimes?.whenOneExits().then(() => lost('runtime'));
    }
    return true;
  }

  private retryLater(): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.fill();
    }, RETRY_AFTER_FAILURE_MS);
    this.retryTimer.unref();
  }
}
