import { spawn, type ChildProcess } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../pool/browser-launcher';
import { bwrapArgs, prlimitArgs } from './bwrap';

export interface SessionBrowserSettings {
  chromiumPath: string;
  uid: number;
  /** Host directory for the browser's profile (owned by `uid`), /data inside. */
  dataDir: string;
  /** The policy proxy every connection of the browser goes through. */
  proxyUrl: string;
  processes: number;
  launchTimeoutMs: number;
  /** Chromium in fewer processes (SESSION_LEAN_ARGS); false = the flags before issue 13's memory work. */
  lean: boolean;
}

/**
 * Fewer processes for a one-page session browser: GPU and network service inside the browser
 * process, audio in-process, no zygote (Chromium's own sandbox is off anyway: bubblewrap is the
 * sandbox, and the zygote only exists to fork sandboxed children) and no spare renderer kept ready.
 * 6 processes become 2 (browser + one renderer per site); measured about 25 MB PSS less per idle
 * session (docs/benchmarks.md). Site isolation stays on. A crash of the network service now ends
 * the browser, which ends its session like any browser exit.
 */
export const SESSION_LEAN_ARGS = [
  '--in-process-gpu',
  '--no-zygote',
  '--enable-features=NetworkServiceInProcess2,NetworkServiceInProcess',
  '--disable-features=AudioServiceOutOfProcess,SpareRendererForSitePerProcess',
];

const DEVTOOLS = /DevTools listening on (ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[\w-]+)/;

/**
 * The Chromium process of one session, alone (no other team's contexts in it, since its CDP endpoint
 * is handed out) and in its own bubblewrap sandbox under the session's uid: it sees only /usr and a
 * private profile directory, so `file://` and downloads reach nothing of the host. It stays in the
 * host network namespace to reach the loopback policy proxy, through which every connection goes.
 */
export class SessionBrowser {
  private constructor(
    private readonly child: ChildProcess,
    readonly wsEndpoint: string,
    readonly browser: Browser,
  ) {}

  static async launch(s: SessionBrowserSettings): Promise<SessionBrowser> {
    const args = bwrapArgs({
      shareNetwork: true,
      mounts: [{ from: s.dataDir, to: '/data', writable: true }],
      env: { HOME: '/data', LANG: 'C.UTF-8', PATH: '/usr/bin:/bin' },
      cwd: '/data',
      command: [
        s.chromiumPath,
        '--headless',
        '--no-sandbox',
        ...CHROMIUM_ARGS,
        ...(s.lean ? SESSION_LEAN_ARGS : []),
        '--disable-dev-shm-usage',
        '--remote-debugging-address=127.0.0.1',
        '--remote-debugging-port=0',
        '--user-data-dir=/data/profile',
        `--proxy-server=${s.proxyUrl}`,
        '--proxy-bypass-list=<-loopback>',
        '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--window-size=1280,800',
        'about:blank',
      ],
    });
    const child = spawn(
      '/usr/bin/prlimit',
      [
        ...prlimitArgs({
          addressSpaceBytes: 0,
          cpuSeconds: 24 * 3600,
          processes: s.processes,
          fileBytes: 1024 * 1024 * 1024,
        }),
        '/usr/bin/bwrap',
        ...args,
      ],
      // An empty environment: bwrap's own init (pid 1 inside) keeps the environment it was started with.
      { env: {}, cwd: '/', uid: s.uid, gid: s.uid, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const wsEndpoint = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => fail(new Error('Chromium did not start in time')), s.launchTimeoutMs);
      const onData = (d: Buffer) => {
        seen = (seen + d.toString()).slice(-8192);
        const m = DEVTOOLS.exec(seen);
        if (m) {
          clearTimeout(timer);
          child.stderr!.off('data', onData);
          child.stderr!.resume();
          resolve(m[1]);
        }
      };
      const fail = (err: Error) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(err);
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) =>
        fail(new Error(`Chromium exited at start (code ${code}): ${seen.slice(-500)}`)),
      );
    });
    try {
      const browser = await chromium.connectOverCDP(wsEndpoint, { timeout: s.launchTimeoutMs });
      // The start page must have loaded: a navigation issued while it loads is aborted by it.
      const context = browser.contexts()[0];
      const page = context.pages()[0] ?? (await context.waitForEvent('page', { timeout: s.launchTimeoutMs }));
      await page.waitForLoadState('load', { timeout: s.launchTimeoutMs });
      return new SessionBrowser(child, wsEndpoint, browser);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
  }

  /** Resolves when the browser process is gone (crash, kill, close). */
  get exited(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  /** Ends the browser: the whole sandbox (PID namespace) goes with bwrap. */
  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
