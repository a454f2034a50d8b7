import { chromium, type Browser } from 'playwright-core';
import type { ProcessTable } from './process-memory';

export interface LaunchedBrowser {
  browser: Browser;
  /** Pid of the browser's main process, when it could be identified (memory accounting). */
  pid?: number;
}

/** Starts one browser process. Injectable so pool logic is testable without Chromium. */
export abstract class BrowserLauncher {
  abstract launch(): Promise<LaunchedBrowser>;
}

/**
 * Flags beyond playwright-core's own (`--headless`, `--no-sandbox` when chromiumSandbox is false,
 * `--disable-background-networking`, `--disable-component-update`, `--no-first-run`, `--disable-sync`,
 * and a fresh temporary `--user-data-dir` per launch): no GPU on servers, and no QUIC, so every request
 * goes through the interception that enforces the network policy.
 */
export const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launches Debian's Chromium through playwright-core (never a downloaded browser build). */
export class ChromiumLauncher extends BrowserLauncher {
  constructor(
    private readonly executablePath: string,
    private readonly processes: ProcessTable,
    /** Every connection of the browser goes through this proxy (network policy); loopback included. */
    private readonly proxyUrl: () => string,
  ) {
    super();
  }

  async launch(): Promise<LaunchedBrowser> {
    // Launches are serialised by the pool, so the one new child of this process is the new browser.
    const before = new Set(await this.processes.children(process.pid));
    const browser = await chromium.launch({
      executablePath: this.executablePath,
      args: CHROMIUM_ARGS,
      // As root the Chromium sandbox cannot start; isolation comes from the container and contexts.
      chromiumSandbox: false,
      proxy: { server: this.proxyUrl() },
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const fresh = (await this.processes.children(process.pid)).filter((p) => !before.has(p));
    return { browser, pid: fresh.length === 1 ? fresh[0] : undefined };
  }
}
