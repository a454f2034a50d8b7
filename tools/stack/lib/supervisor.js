'use strict';
// Runs one service process, prefixes its output with the service name and restarts it with
// exponential back-off when it exits without being asked to. LocalServer does the same for the
// local servers `npm start` runs beside the services (the embedded LLM, SearXNG).
const { spawn } = require('node:child_process');
const readline = require('node:readline');
const log = require('./log');
const { localInfra } = require('./infra');

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
// A process that ran this long counts as healthy again: the back-off starts over.
const STABLE_AFTER_MS = 30_000;
// A service exits with this (sysexits' EX_CONFIG, libs/service-kit) when its configuration is
// invalid: restarting cannot help, so the supervisor gives up and reports the reason.
const EXIT_CONFIG = 78;

/**
 * Exponential back-off between restarts: `minMs` doubling up to `maxMs`; a process that ran longer
 * than `stableAfterMs` counts as healthy again and starts the back-off over.
 */
class Backoff {
  /** @param {{ minMs: number, maxMs: number, stableAfterMs: number }} opts */
  constructor(opts) {
    this.opts = opts;
    this.failures = 0;
  }

  /** The wait before the next start, given how long the process that just exited ran. */
  next(ranMs) {
    const { minMs, maxMs, stableAfterMs } = this.opts;
    this.failures = ranMs > stableAfterMs ? 1 : this.failures + 1;
    return Math.min(maxMs, minMs * 2 ** (this.failures - 1));
  }
}

class ServiceProcess {
  /**
   * @param {{ name: string, script: string, env: NodeJS.ProcessEnv, cwd: string,
   *           onSpawn?: (name: string, pid: number) => void,
   *           onFatal?: (name: string, reason: string) => void }} opts
   */
  constructor(opts) {
    this.name = opts.name;
    this.script = opts.script;
    this.env = opts.env;
    this.cwd = opts.cwd;
    this.onSpawn = opts.onSpawn || (() => undefined);
    this.onFatal = opts.onFatal || (() => undefined);
    /** The service's last output lines, to name the reason of a fatal exit. */
    this.tail = [];
    this.child = undefined;
    this.stopping = false;
    this.restarts = 0;
    this.backoff = new Backoff({
      minMs: MIN_BACKOFF_MS,
      maxMs: MAX_BACKOFF_MS,
      stableAfterMs: STABLE_AFTER_MS,
    });
    this.lastExit = undefined;
    this.restartTimer = undefined;
  }

  get pid() {
    return this.child && this.child.exitCode === null && this.child.signalCode === null
      ? this.child.pid
      : undefined;
  }

  start() {
    const startedAt = Date.now();
    // Own process group: a terminal Ctrl-C reaches only the supervisor, which stops services in order.
    // SIGTERM (its graceful stop) when this supervisor dies without stopping it (a SIGKILL).
    const [command, args] = localInfra().withParentDeathSignal(process.execPath, [this.script]);
    const child = spawn(command, args, {
      cwd: this.cwd,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    const remember = (line) => {
      this.tail.push(line);
      if (this.tail.length > 20) this.tail.shift();
    };
    pipeLines(child.stdout, process.stdout, this.name, remember);
    pipeLines(child.stderr, process.stderr, this.name, remember);
    child.once('error', (err) => log.error(`${this.name}: ${err.message}`));
    if (child.pid) this.onSpawn(this.name, child.pid);
    child.once('exit', (code, signal) => {
      this.lastExit = signal ? `signal ${signal}` : `code ${code}`;
      if (this.stopping) return;
      if (code === EXIT_CONFIG) {
        this.stopping = true;
        // The exit can come before the last output lines were read: name the reason once they are.
        setImmediate(() => this.onFatal(this.name, `invalid configuration: ${configReason(this.tail)}`));
        return;
      }
      const delay = this.backoff.next(Date.now() - startedAt);
      this.restarts += 1;
      log.warn(`${this.name} exited unexpectedly (${this.lastExit}); restarting in ${delay / 1000}s`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (!this.stopping) this.start();
      }, delay);
    });
  }

  /** SIGTERM, then SIGKILL after graceMs. Resolves with true when the exit was graceful. */
  stop(graceMs) {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        log.warn(`${this.name} did not stop within ${graceMs / 1000}s; killing it`);
        killGroup(child.pid, 'SIGKILL');
        resolve(false);
      }, graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        // Anything the service started (a browser, say) goes with it.
        killGroup(child.pid, 'SIGKILL');
        resolve(true);
      });
      child.kill('SIGTERM');
    });
  }

  /** Last resort when the supervisor itself is going down hard. */
  killNow() {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.child && this.child.pid) killGroup(this.child.pid, 'SIGKILL');
  }

  describe() {
    if (this.pid)
      return `${this.name}: running (pid ${this.pid}${this.restarts ? `, ${this.restarts} restarts` : ''})`;
    return `${this.name}: NOT running (last exit ${this.lastExit || 'none'}, ${this.restarts} restarts)`;
  }
}

/**
 * A local server started by a function of @wds/local-infra (`startModelServer`, `startSearxng`:
 * each resolves once it serves, with its pid, log file, `exited` and `stop()`), restarted with
 * back-off (2 s doubling to 60 s) when it exits without being asked to.
 */
class LocalServer {
  /**
   * @param {{ name: string, label: string,
   *           start: () => Promise<{ pid?: number, logFile?: string,
   *             exited: Promise<{ code: number | null, signal: string | null }>, stop(): Promise<void> }>,
   *           onSpawn: (name: string, pid: number) => void }} opts
   */
  constructor(opts) {
    this.opts = opts;
    this.server = undefined;
    this.stopping = false;
    this.timer = undefined;
    this.backoff = new Backoff({ minMs: 2000, maxMs: 60_000, stableAfterMs: 60_000 });
  }

  async launch() {
    const { name, label, start, onSpawn } = this.opts;
    const startedAt = Date.now();
    const server = await start();
    this.server = server;
    if (server.pid) onSpawn(name, server.pid);
    void server.exited.then((exit) => {
      if (this.stopping) return;
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      const delay = this.backoff.next(Date.now() - startedAt);
      log.warn(
        `${label} exited unexpectedly (${how}; log ${server.logFile}); restarting in ${delay / 1000}s`,
      );
      this.timer = setTimeout(() => {
        if (this.stopping) return;
        this.launch().catch((err) => log.error(`${label} restart failed: ${err.message}`));
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
    clearTimeout(this.timer);
    if (this.server?.pid) {
      try {
        process.kill(this.server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already empty
  }
}

function pipeLines(from, to, name, remember) {
  const prefix = log.prefix(name);
  readline.createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => {
    remember(line);
    to.write(`${prefix}${line}\n`);
  });
}

/** The last log line's message (pino JSON, listing every bad variable), else the last line as written. */
function configReason(tail) {
  for (let i = tail.length - 1; i >= 0; i--) {
    try {
      const entry = JSON.parse(tail[i]);
      if (entry && typeof entry.msg === 'string') return entry.msg.replace(/\s*\n\s*/g, ' ');
    } catch {
      // not JSON
    }
  }
  return tail.at(-1) || 'see the output above';
}

module.exports = { Backoff, LocalServer, ServiceProcess };
