import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { CodeLanguage, SessionExecuteReply } from '@wds/contracts';
import { CodeSandbox, type CodeSandboxSettings } from '../sandbox/code-sandbox';
import type { SandboxCgroup } from '../sandbox/cgroup';
import { CdpRelay } from './cdp-relay';

/** Host directories of one session (removed when it ends). */
export interface SessionDirs {
  root: string;
  browserData: string;
  scratch: string;
  socketDir: string;
}

export type RuntimeSettings = Omit<CodeSandboxSettings, 'scratchDir' | 'socketDir' | 'cgroup'>;

/**
 * Everything a session's code reaches its browser through, bound to ONE browser: the CDP relay of
 * that browser's endpoint, the unix socket the code sandboxes get as their only way out, the
 * session's memory/pids cgroup and its language runtimes (one sandbox each, REPL state). Made with
 * the browser — ahead of the session for a warm browser, whose runtimes may then be started early —
 * and closed with it; it is never moved to another browser.
 */
export class SessionRuntimes {
  readonly relay: CdpRelay;
  private readonly sandboxes = new Map<CodeLanguage, CodeSandbox>();
  private socketServer?: http.Server;
  private activity: () => void = () => undefined;
  private closed = false;

  private constructor(
    /** The one browser these runtimes reach (its CDP endpoint on the host loopback). */
    readonly browserWsEndpoint: string,
    private readonly dirs: SessionDirs,
    private readonly settings: RuntimeSettings,
    private readonly cgroup: SandboxCgroup | undefined,
  ) {
    this.relay = new CdpRelay(browserWsEndpoint, () => this.activity());
  }

  /** The relay and its socket (`<socketDir>/cdp.sock`) for the browser at `browserWsEndpoint`. */
  static async open(
    browserWsEndpoint: string,
    dirs: SessionDirs,
    settings: RuntimeSettings,
    cgroup: SandboxCgroup | undefined,
  ): Promise<SessionRuntimes> {
    const runtimes = new SessionRuntimes(browserWsEndpoint, dirs, settings, cgroup);
    try {
      await runtimes.listen();
    } catch (err) {
      runtimes.close();
      throw err;
    }
    return runtimes;
  }

  /** Every CDP message a client sends from now on counts as the session's activity. */
  onActivity(touch: () => void): void {
    this.activity = touch;
  }

  /** Languages whose runtime process runs now. */
  get running(): CodeLanguage[] {
    return [...this.sandboxes].filter(([, s]) => s.running).map(([l]) => l);
  }

  /** Starts a language's runtime before its first call; rejects when it could not start. */
  prestart(language: CodeLanguage): Promise<void> {
    return this.sandbox(language).prestart();
  }

  /** Resolves when one of the runtimes running now exits. */
  whenOneExits(): Promise<void> {
    const running = [...this.sandboxes.values()].filter((s) => s.running);
    if (running.length === 0) return new Promise(() => undefined);
    return Promise.race(running.map((s) => s.whenExited()));
  }

  /** Stops the runtimes no call has used (a session that has not needed them gives their memory back). */
  stopUncalled(): CodeLanguage[] {
    return [...this.sandboxes].filter(([, s]) => s.stopIfUncalled()).map(([l]) => l);
  }

  run(language: CodeLanguage, code: string, timeoutMs: number): Promise<SessionExecuteReply> {
    return this.sandbox(language).run(code, timeoutMs);
  }

  /** Kills the runtimes, closes the relay and the socket, removes the cgroup. */
  close(): void {
    this.closed = true;
    for (const s of this.sandboxes.values()) s.close();
    this.sandboxes.clear();
    this.relay.close();
    this.socketServer?.close();
    this.cgroup?.remove();
  }

  private sandbox(language: CodeLanguage): CodeSandbox {
    if (this.closed) throw new Error('the session runtimes are closed');
    let s = this.sandboxes.get(language);
    if (!s) {
      s = new CodeSandbox(language, {
        ...this.settings,
        cgroup: this.cgroup,
        scratchDir: this.dirs.scratch,
        socketDir: this.dirs.socketDir,
      });
      this.sandboxes.set(language, s);
    }
    return s;
  }

  private async listen(): Promise<void> {
    const file = path.join(this.dirs.socketDir, 'cdp.sock');
    const server = http.createServer((req, res) =>
      this.relay.answerHttp(req, res, `ws://${req.headers.host ?? '127.0.0.1:9222'}`),
    );
    server.on('upgrade', (req, socket, head: Buffer) => {
      const p = (req.url ?? '').split('?')[0];
      this.relay.upgrade(req, socket, head, p);
    });
    this.socketServer = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => resolve());
    });
    fs.chmodSync(file, 0o666);
  }
}
