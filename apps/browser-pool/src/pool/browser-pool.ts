import { ServiceError, type BrowserPoolStats } from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import type { BrowserLauncher } from './browser-launcher';
import type { ProcessTable } from './process-memory';

export interface PoolSettings {
  instanceId: string;
  /** Browser processes kept running. */
  browsers: number;
  /** Concurrent job contexts on this replica; beyond it work is refused (CONCURRENCY_LIMITED). */
  capacity: number;
  /** A browser is replaced after this many jobs... */
  recycleAfterJobs: number;
  /** ...or once its process tree holds more than this (PSS bytes). */
  recycleAboveBytes: number;
  /** Pause between two browser launches, so starting replicas do not saturate the CPU at once. */
  launchStaggerMs: number;
  /** How often a browser's memory is measured at most (ms). */
  memoryCheckIntervalMs?: number;
}

/** Creates and disposes job contexts; the renderer decides what a context contains (routes, emulation). */
export interface ContextFactory<C> {
  create(browser: Browser, options: BrowserContextOptions): Promise<C>;
  close(context: C): Promise<void>;
}

/** Contexts whose options equal `spare.options` may be created ahead of time (off the request's path). */
export interface SpareSpec {
  key: string;
  options: BrowserContextOptions;
}

export interface JobSpec {
  /** Equal to the pool's spare key when the pre-created context may be used. */
  key?: string;
  options: BrowserContextOptions;
  /** Epoch ms after which waiting for a browser is pointless. */
  deadline: number;
  /**
   * False: a job that lost its browser is not run again on the replacement; it fails with a
   * LostBrowserError (a job that acts on a site, an agent run, must not be repeated blindly).
   */
  rerunOnLostBrowser?: boolean;
}

interface Entry {
  id: number;
  browser: Browser;
  pid?: number;
  jobs: number;
  active: number;
  retiring: boolean;
  closing: boolean;
  lastMemoryCheck: number;
  spare?: Promise<unknown>;
  /** Rejects when the browser disconnects, so jobs stop waiting on calls that will never answer. */
  lost: Promise<never>;
}

const LAUNCH_RETRY_MS = [500, 2000, 5000];
/** Time past a job's deadline before the pool gives up on it (its own timeouts should end it first). */
const JOB_OVERRUN_MS = 3000;

/**
 * A replica's browsers: a fixed number of Chromium processes shared by at most `capacity` concurrent
 * jobs, each in a fresh context. Browsers are recycled after N jobs or above a memory threshold,
 * replaced when they crash (a job that lost its browser runs again once on the replacement), launched
 * one at a time with a pause, and drained on shutdown.
 */
export class BrowserPool<C> {
  private readonly entries = new Set<Entry>();
  private launching = 0;
  private launchChain: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];
  private readonly background = new Set<Promise<unknown>>();
  private active = 0;
  private nextId = 1;
  private draining = false;
  private stopped = false;
  private readonly counters = { launches: 0, crashes: 0, recycled: 0, jobs: 0, rejected: 0 };

  constructor(
    private readonly settings: PoolSettings,
    private readonly launcher: BrowserLauncher,
    private readonly factory: ContextFactory<C>,
    private readonly processes: ProcessTable,
    private readonly logger: Logger,
    private readonly spare?: SpareSpec,
    private readonly now: () => number = Date.now,
  ) {}

  /** Launches the browsers (staggered) and resolves once the first one is ready. */
  async start(): Promise<void> {
    this.ensureBrowsers();
    await this.waitForBrowser(this.now() + 60_000);
  }

  stats(): BrowserPoolStats {
    return {
      instanceId: this.settings.instanceId,
      capacity: this.settings.capacity,
      activeContexts: this.active,
      browsers: [...this.entries].filter((e) => !e.retiring).length,
      draining: this.draining,
      ...this.counters,
    };
  }

  /** Main process ids of the running browsers (operations, tests). */
  browserPids(): number[] {
    return [...this.entries].flatMap((e) => (e.pid === undefined ? [] : [e.pid]));
  }

  /**
   * Runs `job` in a fresh context. Refuses at once when the replica is at capacity or draining, so the
   * caller can try another replica instead of queueing here.
   */
  async run<T>(spec: JobSpec, job: (context: C) => Promise<T>): Promise<T> {
    if (this.draining || this.active >= this.settings.capacity) {
      this.counters.rejected++;
      throw new ServiceError(
        'CONCURRENCY_LIMITED',
        this.draining
          ? 'This browser-pool replica is shutting down'
          : 'Every browser context of this replica is busy',
        { capacity: this.settings.capacity },
        1,
      );
    }
    this.active++;
    try {
      try {
        return await this.runOnce(spec, job);
      } catch (err) {
        if (err instanceof LostBrowserError && spec.rerunOnLostBrowser === false) throw err;
        if (!(err instanceof LostBrowserError) || this.now() >= spec.deadline) throw unwrap(err);
        // The browser died under the job (crash, OOM kill): it is being replaced, run the job there.
        this.logger.warn({ err: err.cause }, 'browser lost during a job; running it again');
        return await this.runOnce(spec, job).catch((again: unknown) => Promise.reject(unwrap(again)));
      }
    } finally {
      this.active--;
    }
  }

  /** Stops taking work, waits for running jobs (at most `timeoutMs`), then closes every browser. */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const until = this.now() + timeoutMs;
    while (this.active > 0 && this.now() < until) await sleep(50);
    this.stopped = true;
    await Promise.allSettled([...this.background]);
    await Promise.allSettled([...this.entries].map((e) => this.closeEntry(e)));
    await this.launchChain.catch(() => undefined);
    for (const wake of this.waiters.splice(0)) wake();
  }

  private async runOnce<T>(spec: JobSpec, job: (context: C) => Promise<T>): Promise<T> {
    const entry = await this.acquire(spec.deadline);
    entry.active++;
    let context: C | undefined;
    let closed = false;
    const close = () => {
      if (context === undefined || closed) return;
      closed = true;
      this.track(this.factory.close(context));
    };
    const work = (async () => {
      context = await this.takeContext(entry, spec);
      return job(context);
    })();
    // Whichever way the race below ends, the context is closed once the work itself has settled.
    void work.then(close, close);
    // Calls into a browser that died (or hangs) may never settle: the job ends with the browser or
    // shortly after its deadline regardless, and closing its context makes the pending calls fail.
    let watchdog: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_, reject) => {
      watchdog = setTimeout(
        () => {
          close();
          reject(new ServiceError('SCRAPE_TIMEOUT', 'The browser did not finish the page in time'));
        },
        Math.max(0, spec.deadline - this.now()) + JOB_OVERRUN_MS,
      );
    });
    try {
      return await Promise.race([work, entry.lost, overrun]);
    } catch (err) {
      if (!entry.browser.isConnected()) throw new LostBrowserError(err);
      throw err;
    } finally {
      clearTimeout(watchdog);
      entry.active--;
      entry.jobs++;
      this.counters.jobs++;
      this.track(this.afterJob(entry));
    }
  }

  private async takeContext(entry: Entry, spec: JobSpec): Promise<C> {
    if (this.spare && spec.key === this.spare.key && entry.spare) {
      const spare = entry.spare as Promise<C>;
      entry.spare = undefined;
      const ready = await spare.catch(() => undefined);
      if (ready !== undefined) {
        this.prepareSpare(entry);
        return ready;
      }
    }
    return this.factory.create(entry.browser, spec.options);
  }

  private prepareSpare(entry: Entry): void {
    if (!this.spare || entry.retiring || entry.closing || this.stopped || entry.spare) return;
    const created = this.factory.create(entry.browser, this.spare.options);
    created.catch(() => undefined);
    entry.spare = created;
  }

  private async acquire(deadline: number): Promise<Entry> {
    for (;;) {
      const ready = [...this.entries].filter((e) => !e.retiring && !e.closing && e.browser.isConnected());
      if (ready.length > 0) return ready.reduce((a, b) => (b.active < a.active ? b : a));
      if (this.stopped) throw new ServiceError('SERVICE_UNAVAILABLE', 'The browser pool is stopped');
      if (this.now() >= deadline) throw new ServiceError('SCRAPE_TIMEOUT', 'No browser became ready in time');
      this.ensureBrowsers();
      await this.waitForBrowser(deadline);
    }
  }

  private waitForBrowser(deadline: number): Promise<void> {
    if ([...this.entries].some((e) => !e.retiring && !e.closing)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, deadline - this.now()));
      const waiter = () => done();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(waiter);
    });
  }

  /** Launches browsers until the target count (not counting retiring ones) is running or starting. */
  private ensureBrowsers(): void {
    if (this.stopped || this.draining) return;
    const live = [...this.entries].filter((e) => !e.retiring && !e.closing).length;
    for (let missing = this.settings.browsers - live - this.launching; missing > 0; missing--) {
      this.launching++;
      const first = this.counters.launches === 0 && this.launching === 1;
      this.launchChain = this.launchChain
        .then(() => (first ? undefined : sleep(this.settings.launchStaggerMs)))
        .then(() => this.launchOne());
    }
  }

  /** Launches one browser, retrying with back-off; `launching` drops as soon as the browser is usable. */
  private async launchOne(attempt = 0): Promise<void> {
    if (this.stopped) {
      this.launching--;
      return;
    }
    try {
      const { browser, pid } = await this.launcher.launch();
      this.counters.launches++;
      const lost = new Promise<never>((_, reject) =>
        browser.on('disconnected', () => reject(new Error('The browser disconnected'))),
      );
      lost.catch(() => undefined);
      const entry: Entry = {
        id: this.nextId++,
        browser,
        lost,
        pid,
        jobs: 0,
        active: 0,
        retiring: false,
        closing: false,
        lastMemoryCheck: this.now(),
      };
      if (this.stopped) {
        this.launching--;
        await browser.close().catch(() => undefined);
        return;
      }
      browser.on('disconnected', () => this.onDisconnected(entry));
      this.entries.add(entry);
      this.launching--;
      this.prepareSpare(entry);
      this.logger.info({ browser: entry.id, pid }, 'browser launched');
      for (const wake of this.waiters.splice(0)) wake();
    } catch (err) {
      const delay = LAUNCH_RETRY_MS[Math.min(attempt, LAUNCH_RETRY_MS.length - 1)];
      this.logger.error({ err, attempt, retryInMs: delay }, 'browser launch failed');
      await sleep(delay);
      return this.launchOne(attempt + 1);
    }
  }

  private onDisconnected(entry: Entry): void {
    this.entries.delete(entry);
    if (entry.closing) return;
    this.counters.crashes++;
    this.logger.warn(
      { browser: entry.id, jobs: entry.jobs, active: entry.active },
      'browser crashed; replacing it',
    );
    this.ensureBrowsers();
  }

  private async afterJob(entry: Entry): Promise<void> {
    if (entry.retiring) {
      if (entry.active === 0) await this.closeEntry(entry);
      return;
    }
    let reason: string | undefined;
    if (entry.jobs >= this.settings.recycleAfterJobs) reason = 'jobs';
    else if (
      entry.pid !== undefined &&
      this.now() - entry.lastMemoryCheck >= (this.settings.memoryCheckIntervalMs ?? 5000)
    ) {
      entry.lastMemoryCheck = this.now();
      const bytes = await this.processes.treePssBytes(entry.pid);
      if (bytes > this.settings.recycleAboveBytes) reason = 'memory';
    }
    if (!reason || entry.retiring) return;
    entry.retiring = true;
    this.counters.recycled++;
    this.logger.info({ browser: entry.id, jobs: entry.jobs, reason }, 'recycling browser');
    this.ensureBrowsers();
    if (entry.active === 0) await this.closeEntry(entry);
  }

  private async closeEntry(entry: Entry): Promise<void> {
    if (entry.closing) return;
    entry.closing = true;
    this.entries.delete(entry);
    await entry.browser
      .close()
      .catch((err: unknown) => this.logger.warn({ err }, 'closing a browser failed'));
  }

  private track(work: Promise<unknown>): void {
    const p = work.catch((err: unknown) => this.logger.warn({ err }, 'browser pool housekeeping failed'));
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
  }
}

/** The browser died under a job (crash, OOM kill); `cause` is what the job saw. */
export class LostBrowserError extends Error {
  constructor(override readonly cause: unknown) {
    super('browser lost');
  }
}

function unwrap(err: unknown): unknown {
  return err instanceof LostBrowserError ? err.cause : err;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
