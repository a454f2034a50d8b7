import type { Logger } from '@wds/observability';
import type { SessionBrowser } from '../sandbox/session-browser';
import type { SessionDirs } from './live-session';

/**
 * A session's browser started ahead of its session: launched exactly as a session's (its own slot,
 * so its own sandbox uid, and its own empty profile directory under the future session's id).
 */
export interface WarmBrowser {
  id: string;
  slot: number;
  dirs: SessionDirs;
  browser: SessionBrowser;
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
    // One whose browser just went away (its exit not handled yet) is discarded, not handed out.
    while (warm && !warm.browser.browser.isConnected()) {
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
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.fill();
      }, RETRY_AFTER_FAILURE_MS);
      this.retryTimer.unref();
      return false;
    }
    if (!warm) return false;
    if (this.closed) {
      await this.hooks.discard(warm);
      return false;
    }
    this.ready.push(warm);
    void warm.browser.exited.then(() => {
      const at = this.ready.indexOf(warm);
      if (at < 0) return; // taken by a session, which watches it itself
      this.ready.splice(at, 1);
      this.logger.warn({ slot: warm.slot }, 'a warm session browser exited while waiting');
      void this.hooks.discard(warm).finally(() => this.fill());
    });
    return true;
  }
}
