import type { BrowserSessionRecord, CodeLanguage, SessionExecuteReply } from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { Page } from 'playwright-core';
import type { SessionBrowser } from '../sandbox/session-browser';
import type { CdpRelay } from './cdp-relay';
import { LiveViews } from './live-view';
import type { SessionRecorder } from './session-recorder';
import type { SessionDirs, SessionRuntimes } from './session-runtimes';

export type { SessionDirs } from './session-runtimes';

/** A session running on this replica: its browser, its relay, its code runtimes and its clocks. */
export class LiveSession {
  /** Screencast viewers (liveViewUrl / interactiveLiveViewUrl); input from the interactive one is activity. */
  readonly views: LiveViews;
  private chain: Promise<unknown> = Promise.resolve();
  lastActivity = Date.now();
  ending = false;
  /** The page opened last (by code, CDP or a popup) while it is open: live views show it. */
  private active?: Page;
  /** Pages brought to the front whose close is watched (the default context's are by 'page'). */
  private readonly watched = new WeakSet<Page>();
  /** Records what the session shows (recordSession), from record() until close(). */
  private recorder?: SessionRecorder;

  constructor(
    readonly record: BrowserSessionRecord,
    readonly token: string,
    readonly slot: number,
    readonly dirs: SessionDirs,
    readonly browser: SessionBrowser,
    /** Made with this browser (warm: with runtimes already started), never another's. */
    private readonly runtimes: SessionRuntimes,
    logger?: Logger,
  ) {
    if (runtimes.browserWsEndpoint !== browser.wsEndpoint)
      throw new Error("a session's runtimes must be those made with its own browser");
    runtimes.onActivity(() => this.touch());
    this.views = new LiveViews(
      () => this.page(),
      () => this.touch(),
      undefined,
      (err) => logger?.warn({ err, sessionId: record.id }, 'live view closed: the page could not be shown'),
    );
    // A page the code brings to the front (Page.bringToFront, Target.activateTarget) is shown.
    runtimes.relay.onFront = (targetId) => void this.bringToFront(targetId);
    const context = browser.browser.contexts()[0];
    context.on('page', (page) => {
      this.active = page;
      this.activePageChanged();
      page.once('close', () => {
        if (this.active !== page) return;
        this.active = undefined;
        this.activePageChanged();
      });
    });
  }

  /** Shows the open page of the session's browser whose CDP target is `targetId`, if any. */
  private async bringToFront(targetId: string): Promise<void> {
    for (const context of this.browser.browser.contexts()) {
      for (const page of context.pages()) {
        if ((await targetIdOf(page)) !== targetId || page.isClosed()) continue;
        if (this.active === page) return;
        this.active = page;
        if (!this.watched.has(page)) {
          this.watched.add(page);
          page.once('close', () => {
            if (this.active !== page) return;
            this.active = undefined;
            this.activePageChanged();
          });
        }
        this.activePageChanged();
        return;
      }
    }
  }

  private activePageChanged(): void {
    this.views.activePageChanged();
    this.recorder?.follow();
  }

  /** Starts recording what the session shows with `recorder` (its page is this session's). */
  async startRecording(recorder: SessionRecorder): Promise<void> {
    this.recorder = recorder;
    await recorder.start();
  }

  get createdAtMs(): number {
    return Date.parse(this.record.createdAt);
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  /**
   * The page the session shows: the one opened last while it is open, else the last open one (the
   * first of the default context at start); a new one when every page was closed.
   */
  async page(): Promise<Page> {
    if (this.active && !this.active.isClosed()) return this.active;
    const context = this.browser.browser.contexts()[0];
    return context.pages().at(-1) ?? (await context.newPage());
  }

  /** The CDP relay of this session's browser (code sandboxes and cdpUrl). */
  get relay(): CdpRelay {
    return this.runtimes.relay;
  }

  /** Runs code in the language's runtime; calls of one session run one after another. */
  execute(language: CodeLanguage, code: string, timeoutMs: number): Promise<SessionExecuteReply> {
    return this.exclusive(() => this.runtimes.run(language, code, timeoutMs));
  }

  /** Starts a runtime before its first call (interact: while the scrape is replayed). */
  prestart(language: CodeLanguage): void {
    this.runtimes.prestart(language).catch(() => undefined);
  }

  /** Languages whose runtime runs now (started ahead or by a call). */
  get runningRuntimes(): CodeLanguage[] {
    return this.runtimes.running;
  }

  /** Stops the runtimes started ahead that no call has used. */
  stopUncalledRuntimes(): CodeLanguage[] {
    return this.runtimes.stopUncalled();
  }

  /** Runs work on the session (code, an agent prompt) after the calls before it. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.touch();
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run.finally(() => this.touch());
  }

  /** Stops runtimes, relay and browser; a recording is finished (and uploaded) first. */
  async close(): Promise<void> {
    this.runtimes.close();
    this.views.close();
    await this.recorder?.stop();
    await this.browser.close();
  }
}

/** Each page's CDP target id, asked once (through a CDP session of the replica's own). */
const targetIds = new WeakMap<Page, Promise<string | undefined>>();

function targetIdOf(page: Page): Promise<string | undefined> {
  let id = targetIds.get(page);
  if (!id) {
    id = (async () => {
      const cdp = await page.context().newCDPSession(page);
      try {
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        return targetInfo.targetId;
      } finally {
        void cdp.detach().catch(() => undefined);
      }
    })().catch(() => undefined);
    targetIds.set(page, id);
  }
  return id;
}
