import fs from 'node:fs';
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
];

/** Below this, /dev/shm is a container's 64 MiB default and Chromium must keep shared memory in /tmp. */
const MIN_SHM_BYTES = 512 * 1024 * 1024;

/**
 * Whether Chromium may use /dev/shm (the Helm chart mounts a memory-backed one): otherwise its shared
 * memory goes to /tmp (`--disable-dev-shm-usage`), which in Kubernetes is a small disk-backed volume.
 */
export function shmIsLarge(path = '/dev/shm'): boolean {
  try {
    const s = fs.statfsSync(path);
    return s.bsize * s.blocks >= MIN_SHM_BYTES;
  } catch {
    return false;
  }
}

/**
 * Variables Chromium gets: locale, time zone, paths and fonts. Nothing else of the service's
 * environment (DATABASE_URL, tokens, API keys) reaches the browser, whose renderers run untrusted
 * pages and user scripts.
 */
const CHROMIUM_ENV_ALLOWED =
  /^(PATH|HOME|TMPDIR|LANG|LANGUAGE|LC_[A-Z]+|TZ|XDG_(CONFIG|CACHE|DATA|RUNTIME)_(HOME|DIR)|FONTCONFIG_(FILE|PATH))$/;

export function chromiumEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && CHROMIUM_ENV_ALLOWED.test(k)) out[k] = v;
  return out;
}

/** Debian's binaries, best first; the real binary, not the /usr/bin wrapper script (its pid is the browser's). */
const CHROMIUM_CANDIDATES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'];

/**
 * The old headless shell when installed: a context costs one renderer process there (~40 MB PSS), where
 * full Chromium's new headless mode adds a browser-UI (WebUI) renderer per context and a spare one
 * (~80 MB), and pages are created 2–3× faster.
 */
export function defaultChromiumPath(): string {
  return (
    CHROMIUM_CANDIDATES.find((p) => fs.existsSync(p)) ?? CHROMIUM_CANDIDATES[CHROMIUM_CANDIDATES.length - 1]
  );
}

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
    const shm = shmIsLarge();
    const browser = await chromium.launch({
      executablePath: this.executablePath,
      env: chromiumEnv(),
      args: shm ? CHROMIUM_ARGS : [...CHROMIUM_ARGS, '--disable-dev-shm-usage'],
      // playwright-core adds the flag itself; dropped when /dev/shm is large enough to use.
      ignoreDefaultArgs: shm ? ['--disable-dev-shm-usage'] : undefined,
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
