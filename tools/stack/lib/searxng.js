'use strict';
// `npm start`'s local SearXNG, for POST /v2/search: with WDS_LOCAL_SEARXNG=true (and no
// WDS_SEARXNG_URL), SearXNG from PyPI (libs/local-infra/python/searxng, pinned by hash) runs as a
// supervised process on 127.0.0.1 and the gateway is pointed at it. Off by default: it asks public
// search engines (DuckDuckGo, Brave, Bing, Wikipedia, arXiv, GitHub; WDS_LOCAL_SEARXNG_ENGINES
// names others of its packaged engines) from this machine.
const path = require('node:path');
const log = require('./log');
const { ROOT } = require('./provision');
const { LocalServer } = require('./supervisor');

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
    this.port = undefined;
    const names = (process.env.WDS_LOCAL_SEARXNG_ENGINES || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    this.engines = names.length > 0 ? names : localInfra().DEFAULT_SEARXNG_ENGINES;
    this.supervised = new LocalServer({
      name: 'searxng',
      label: 'SearXNG',
      start: () => localInfra().startSearxng({ port: this.port, keepEngines: this.engines }),
      onSpawn: opts.onSpawn,
    });
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

  launch() {
    return this.supervised.launch();
  }

  stop() {
    return this.supervised.stop();
  }

  killNow() {
    this.supervised.killNow();
  }
}

module.exports = { wantsLocalSearxng, LocalSearxng };
