import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir } from './model-server';
import { exitOf, findBinary, freePort, stopChild, type RunningServer } from './processes';

const SEARXNG_DIR = path.join(__dirname, '..', 'python', 'searxng');

/** One SearXNG engine entry of its settings (`engine`, `name`, `categories`, engine options). */
export type SearxngEngine = Record<string, unknown> & { name: string; engine: string };

/**
 * Engines of the packaged SearXNG settings a local run keeps by default: general web, images, news,
 * papers and code, none needing an account.
 */
export const DEFAULT_SEARXNG_ENGINES = [
  'duckduckgo',
  'brave',
  'wikipedia',
  'bing',
  'bing images',
  'bing news',
  'arxiv',
  'github',
];

export interface SearxngOptions {
  /** The engines it asks (SearXNG settings `engines`): none of the packaged defaults are kept. */
  engines?: SearxngEngine[];
  /** Else: the packaged engines of these names (default DEFAULT_SEARXNG_ENGINES). */
  keepEngines?: string[];
  port?: number;
  /** Shared cache (default WDS_CACHE_DIR or ~/.cache/wds); the venv lives under <cacheDir>/searxng. */
  cacheDir?: string;
  /** Per-engine request timeout in seconds (SearXNG `outgoing.request_timeout`, default 5). */
  requestTimeoutSeconds?: number;
  logFile?: string;
  startTimeoutMs?: number;
}

export interface RunningSearxng extends RunningServer {
  logFile: string;
}

/**
 * Makes sure the SearXNG venv exists (PyPI wheels pinned by hash in python/searxng/requirements.txt;
 * about 40 MB on first use, later calls return at once) and returns its python.
 */
export async function ensureSearxngRuntime(cacheDir = defaultCacheDir()): Promise<string> {
  const python = findBinary('python3');
  if (!python)
    throw new Error('python3 (>= 3.10) not found: install it (apt-get install -y python3 python3-venv)');
  fs.mkdirSync(cacheDir, { recursive: true });
  const child = spawn(python, [path.join(SEARXNG_DIR, 'provision_searxng.py'), cacheDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ready = /^WDS_SEARXNG_READY (\S+)$/m.exec(out);
  if (code !== 0 || !ready) throw new Error(`provisioning SearXNG failed (exit ${code}):\n${err}`);
  return ready[1];
}

/**
 * Starts SearXNG on 127.0.0.1 with the given engines and its JSON API on, and resolves once it
 * answers a search. For tests (engines pointed at a fixture) and local runs; a deployment runs the
 * official image and points WDS_SEARXNG_URL at it.
 */
export async function startSearxng(opts: SearxngOptions): Promise<RunningSearxng> {
  const python = await ensureSearxngRuntime(opts.cacheDir);
  const port = opts.port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-searxng-'));
  const overrides = path.join(dir, 'overrides.json');
  fs.writeFileSync(
    overrides,
    JSON.stringify({
      general: { instance_name: 'wds', debug: false },
      server: { limiter: false, image_proxy: false, public_instance: false, method: 'GET' },
      search: { formats: ['html', 'json'] },
      outgoing: { request_timeout: opts.requestTimeoutSeconds ?? 5, enable_http2: false },
      ...(opts.engines
        ? { engines: opts.engines }
        : { keep_engines: opts.keepEngines ?? DEFAULT_SEARXNG_ENGINES }),
    }),
  );
  const logFile = opts.logFile ?? path.join(dir, 'searxng.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(
    python,
    [
      path.join(SEARXNG_DIR, 'serve_searxng.py'),
      '--port',
      String(port),
      '--overrides',
      overrides,
      '--parent-pid',
      String(process.pid),
    ],
    { stdio: ['ignore', out, out] },
  );
  fs.closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`SearXNG exited with code ${child.exitCode} while starting:\n${tail(logFile)}`);
    }
    const up = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`SearXNG did not answer on ${url} in time:\n${tail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    pid: child.pid,
    exited: exitOf(child),
    logFile,
    stop: async () => {
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-3000);
  } catch {
    return '';
  }
}
