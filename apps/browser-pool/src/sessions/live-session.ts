import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { BrowserSessionRecord, CodeLanguage, SessionExecuteReply } from '@wds/contracts';
import type { Page } from 'playwright-core';
import { CodeSandbox, type CodeSandboxSettings } from '../sandbox/code-sandbox';
import type { SessionBrowser } from '../sandbox/session-browser';
import { CdpRelay } from './cdp-relay';
import { LiveViews } from './live-view';

/** Host directories of one session (removed when it ends). */
export interface SessionDirs {
  root: string;
  browserData: string;
  scratch: string;
  socketDir: string;
}

/** A session running on this replica: its browser, its relay, its code runtimes and its clocks. */
export class LiveSession {
  readonly relay: CdpRelay;
  /** Screencast viewers (liveViewUrl / interactiveLiveViewUrl); input from the interactive one is activity. */
  readonly views: LiveViews;
  private readonly sandboxes = new Map<CodeLanguage, CodeSandbox>();
  private socketServer?: http.Server;
  private chain: Promise<unknown> = Promise.resolve();
  lastActivity = Date.now();
  ending = false;
  /** The page opened last (by code, CDP or a popup) while it is open: live views show it. */
  private active?: Page;

  constructor(
    readonly record: BrowserSessionRecord,
    readonly token: string,
    readonly slot: number,
    readonly dirs: SessionDirs,
    readonly browser: SessionBrowser,
    private readonly sandboxSettings: Omit<CodeSandboxSettings, 'scratchDir' | 'socketDir'>,
  ) {
    this.relay = new CdpRelay(browser.wsEndpoint, () => this.touch());
    this.views = new LiveViews(
      () => this.page(),
      () => this.touch(),
    );
    const context = browser.browser.contexts()[0];
    context.on('page', (page) => {
      this.active = page;
      this.views.activePageChanged();
      page.once('close', () => {
        if (this.active !== page) return;
        this.active = undefined;
        this.views.activePageChanged();
      });
    });
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

  /** The unix socket bound into the code sandboxes as their only way to the browser. */
  async listenForSandbox(): Promise<void> {
    const file = path.join(this.dirs.socketDir, 'cdp.sock');
    const server = http.createServer((req, res) =>
      this.relay.answerHttp(req, res, `ws://${req.headers.host ?? '127.0.0.1:9222'}`),
    );
    server.on('upgrade', (req, socket, head: Buffer) => {
      const p = (req.url ?? '').split('?')[0];
      this.relay.upgrade(req, socket, head, p);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => resolve());
    });
    fs.chmodSync(file, 0o666);
    this.socketServer = server;
  }

  /** Runs code in the language's runtime; calls of one session run one after another. */
  execute(language: CodeLanguage, code: string, timeoutMs: number): Promise<SessionExecuteReply> {
    return this.exclusive(() => this.sandbox(language).run(code, timeoutMs));
  }

  /** Starts a runtime before its first call (interact: while the scrape is replayed). */
  prestart(language: CodeLanguage): void {
    this.sandbox(language).prestart();
  }

  /** Runs work on the session (code, an agent prompt) after the calls before it. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.touch();
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run.finally(() => this.touch());
  }

  /** Stops runtimes, relay and browser. */
  async close(): Promise<void> {
    for (const s of this.sandboxes.values()) s.close();
    this.sandboxes.clear();
    this.views.close();
    this.relay.close();
    this.socketServer?.close();
    await this.browser.close();
    this.sandboxSettings.cgroup?.remove();
  }

  private sandbox(language: CodeLanguage): CodeSandbox {
    let s = this.sandboxes.get(language);
    if (!s) {
      s = new CodeSandbox(language, {
        ...this.sandboxSettings,
        scratchDir: this.dirs.scratch,
        socketDir: this.dirs.socketDir,
      });
      this.sandboxes.set(language, s);
    }
    return s;
  }
}
