'use strict';
// `npm start`'s local SearXNG, for POST /v2/search: with WDS_LOCAL_SEARXNG=true (and no
// WDS_SEARXNG_URL), SearXNG from PyPI (libs/local-infra/python/searxng, pinned by hash) runs as a
// supervised process on 127.0.0.1 and the gateway is pointed at it. Off by default: it asks public
// search engines (DuckDuckGo, Brave, Bing, Wikipedia, arXiv, GitHub; WDS_LOCAL_SEARXNG_ENGINES
// names others of its packaged engines) from this machine.
const path = require('node:path');
const log = require('./log');
const { ROOT } = require('./provision');

const MIN_BACKOFF_MS = 2000;
const MAX_BACKOFF_MS = 60_000;
const STABLE_AFTER_MS = 60_000;

function localInfra() {
  return require(path.join(ROOT, 'libs', 'local-infra', 'dist', 'index.js'));
}

/** Whether to run a local SearXNG: asked for, and no instance configured. */
function wantsLocalSearxng(env = process.env) {
  if (env.WDS_SEARXNG_URL) return false;
  const v = (env.WDS_LOCAL_SEARXNG || '').trim().toLowerCase();
  if (v === '' || v === 'false' || v === '0' || v === 'none') return false;
  if (v === 'true' || v === '1') return true;
  throw new Error(`WDS_LOCAL_SEARXNG must be true or false (got "${env.WDS_LOCAL_SEARXNG}")`);
}

class LocalSearxng {
  /** @param {{ onSpawn: (name: string, pid: number) => void }} opts */
  constructor(opts) {
    this.onSpawn = opts.onSpawn;
    this.port = undefined;
    this.server = undefined;
    this.stopping = false;
    this.failures = 0;
    const names = (process.env.WDS_LOCAL_SEARXNG_ENGINES || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    this.engines = names.length > 0 ? names : localInfra().DEFAULT_SEARXNG_ENGINES;
  }

  async reservePort() {
    this.port = await localInfra().freePort();
    return this.port;
  }

  /** What the gateway needs to reach it. */
  env() {
    return { WDS_SEARXNG_URL: `http://127.0.0.1:${this.port}` };
  }

  async start() {
    log.info('search: preparing SearXNG (first start installs it from PyPI, ~40 MB, once)');
    await localInfra().ensureSearxngRuntime();
    await this.launch();
    log.info(`search: SearXNG on http://127.0.0.1:${this.port} asking ${this.engines.join(', ')}`);
  }

  async launch() {
    const startedAt = Date.now();
    const server = await localInfra().startSearxng({ port: this.port, keepEngines: this.engines });
    this.server = server;
    if (server.pid) this.onSpawn('searxng', server.pid);
    void server.exited.then((exit) => {
      if (this.stopping) return;
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      this.failures = Date.now() - startedAt > STABLE_AFTER_MS ? 1 : this.failures + 1;
      const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** (this.failures - 1));
      log.warn(`SearXNG exited unexpectedly (${how}; log ${server.logFile}); restarting in ${delay / 1000}s`);
      this.timer = setTimeout(() => {
        this.launch().catch((err) => log.error(`SearXNG restart failed: ${err.message}`));
      }, delay);
    });
  }

  async stop() {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.server?.stop();
  }

  killNow() {
    this.stopping = true;
    if (this.server?.pid) {
      try {
        process.kill(this.server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

module.exports = { wantsLocalSearxng, LocalSearxng };
