import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import readline from 'node:readline';
import type { CodeLanguage, SessionExecuteReply } from '@wds/contracts';
import { bwrapArgs, prlimitArgs, type Limits, type Mount } from './bwrap';
import type { SandboxCgroup } from './cgroup';

/** Where the sandbox files live on the host. */
export interface CodeSandboxSettings {
  /** Host uid/gid the sandbox runs as (one per session, never the service's). */
  uid: number;
  /** The session's private scratch directory (owned by `uid`), /work inside. */
  scratchDir: string;
  /** Directory holding the session's CDP relay socket `cdp.sock`, /run/wds inside. */
  socketDir: string;
  limits: Limits;
  /** The session's memory/pids cgroup; without one, `limits.addressSpaceBytes` bounds each process. */
  cgroup?: SandboxCgroup;
  outputCapBytes: number;
  /** The whole reply (JSON) must fit in one NATS message: longer fields are cut to fit. */
  replyBudgetBytes: number;
  /** Read-only mounts of the worker script and the modules it needs. */
  runtimeMounts: Mount[];
}

interface Pending {
  id: string;
  nonce: string;
  resolve: (reply: { result?: string | null; error?: string; exitCode: number }) => void;
}

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  done = false;

  constructor(
    private readonly cap: number,
    private readonly marker: Buffer,
  ) {}

  push(chunk: Buffer): void {
    if (this.done) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    const all = Buffer.concat(this.chunks);
    const at = all.indexOf(this.marker);
    if (at >= 0) {
      this.done = true;
      this.chunks = [all.subarray(0, at)];
      this.size = at;
      return;
    }
    // Keep the cap plus room for a marker split across chunks.
    if (all.length > this.cap + this.marker.length) {
      this.truncated = true;
      this.chunks = [all.subarray(0, this.cap), all.subarray(all.length - this.marker.length)];
      this.size = this.cap + this.marker.length;
    } else this.chunks = [all];
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    const body = this.done ? all : all.subarray(0, Math.min(all.length, this.cap));
    if (body.length > this.cap) this.truncated = true;
    return body.subarray(0, this.cap).toString('utf8');
  }
}

/**
 * One language runtime of a session in its own bubblewrap sandbox, kept between calls (REPL state).
 * A call that outlives its timeout kills the whole sandbox (PID namespace) and reports `killed`; the
 * next call starts a fresh runtime against the same browser.
 */
export class CodeSandbox {
  private child?: ChildProcess;
  private control?: Duplex;
  private ready?: Promise<void>;
  private pending?: Pending;
  private captures?: { out: Capture; err: Capture };
  private exited?: Promise<number | null>;
  /** Whether a call has come (a runtime started ahead and never called may be stopped). */
  private called = false;

  constructor(
    private readonly language: CodeLanguage,
    private readonly settings: CodeSandboxSettings,
  ) {}

  async run(code: string, timeoutMs: number): Promise<SessionExecuteReply> {
    return fitReply(await this.runRaw(code, timeoutMs), this.settings.replyBudgetBytes);
  }

  private async runRaw(code: string, timeoutMs: number): Promise<SessionExecuteReply> {
    this.called = true;
    const started = Date.now();
    const deadline = started + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      let ready;
      try {
        ready = await Promise.race([this.start(), timedOut]);
      } catch (err) {
        this.close();
        return {
          stdout: '',
          stderr: (err as Error).message,
          result: null,
          exitCode: 1,
          killed: false,
          truncated: false,
          error: `The ${this.language} runtime could not start`,
        };
      }
      if (ready === 'timeout') return this.kill('', '');
      const nonce = randomBytes(12).toString('hex');
      const marker = Buffer.from(`\u0000WDS-END-${nonce}\u0000`);
      const out = new Capture(this.settings.outputCapBytes, marker);
      const err = new Capture(this.settings.outputCapBytes, marker);
      this.captures = { out, err };
      const id = randomUUID();
      const answered = new Promise<{ result?: string | null; error?: string; exitCode: number }>(
        (resolve) => {
          this.pending = { id, nonce, resolve };
        },
      );
      const exited = this.exited!.then((code) => ({ exited: code }));
      this.control!.write(`${JSON.stringify({ id, nonce, code })}\n`);
      const outcome = await Promise.race([answered, exited, timedOut]);
      if (outcome === 'timeout') return this.kill(out.text(), err.text());
      if ('exited' in outcome) {
        const code = outcome.exited ?? 137;
        this.reset();
        return {
          stdout: out.text(),
          stderr: err.text(),
          result: null,
          exitCode: code === 0 ? 1 : code,
          killed: false,
          truncated: out.truncated || err.truncated,
          error: `The ${this.language} runtime exited (code ${code}); its state is lost, the browser is kept`,
        };
      }
      // The answer may overtake the last output: wait (briefly) for both end markers.
      const settleBy = Math.min(deadline, Date.now() + 2000);
      while ((!out.done || !err.done) && Date.now() < settleBy) {
        await new Promise((r) => setTimeout(r, 5));
      }
      return {
        stdout: out.text(),
        stderr: err.text(),
        result: outcome.result ?? null,
        exitCode: outcome.exitCode,
        killed: false,
        truncated: out.truncated || err.truncated,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      };
    } finally {
      clearTimeout(timer);
      this.pending = undefined;
      this.captures = undefined;
    }
  }

  /** Ends the runtime (session end). */
  close(): void {
    this.child?.kill('SIGKILL');
    this.reset();
  }

  private kill(stdout: string, stderr: string): SessionExecuteReply {
    this.close();
    return {
      stdout,
      stderr,
      result: null,
      exitCode: 137,
      killed: true,
      truncated: false,
      error:
        'Execution timed out and was killed; the runtime restarts on the next call (the browser is kept)',
    };
  }

  private reset(): void {
    this.child = undefined;
    this.control = undefined;
    this.ready = undefined;
    this.exited = undefined;
  }

  /**
   * Starts the runtime ahead of its first call (a warm session, or interact while the scrape is
   * replayed). A start that fails is forgotten, so the first call tries again and reports its own.
   */
  prestart(): Promise<void> {
    const ready = this.start();
    return ready.catch((err: unknown) => {
      if (this.ready === ready) this.close();
      throw err;
    });
  }

  /** Whether its process runs (started, not exited). */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves when the process now running exits (at once when none runs). */
  whenExited(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Stops a runtime that no call has used yet (its memory back); true if it did. */
  stopIfUncalled(): boolean {
    if (this.called || !this.child) return false;
    this.close();
    return true;
  }

  private start(): Promise<void> {
    this.ready ??= this.spawn();
    return this.ready;
  }

  private spawn(): Promise<void> {
    const s = this.settings;
    const worker = '/opt/wds/worker.js';
    const args = bwrapArgs({
      shareNetwork: false,
      mounts: [
        ...s.runtimeMounts,
        { from: s.socketDir, to: '/run/wds' },
        { from: s.scratchDir, to: '/work', writable: true },
      ],
      env: {
        PATH: '/opt/wds/bin:/usr/local/bin:/usr/bin:/bin',
        HOME: '/work',
        LANG: 'C.UTF-8',
        WDS_CDP_URL: 'http://127.0.0.1:9222',
      },
      cwd: '/work',
      command: ['/usr/bin/node', worker, this.language],
    });
    const limits = s.cgroup ? { ...s.limits, addressSpaceBytes: 0 } : s.limits;
    const command = ['/usr/bin/prlimit', ...prlimitArgs(limits), '/usr/bin/bwrap', ...args];
    const [file, ...rest] = s.cgroup ? s.cgroup.joinCommand(command) : command;
    // An empty environment: bwrap's own init (pid 1 inside) keeps the environment it was started with.
    const child = spawn(file, rest, {
      env: {},
      cwd: '/',
      uid: s.uid,
      gid: s.uid,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    const control = child.stdio[3] as Duplex;
    this.control = control;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout!.on('data', (d: Buffer) => this.captures?.out.push(d));
    child.stderr!.on('data', (d: Buffer) => this.captures?.err.push(d));
    const startupErr: Buffer[] = [];
    const collectStartup = (d: Buffer) => {
      if (!this.captures) startupErr.push(d);
    };
    child.stderr!.on('data', collectStartup);
    return new Promise<void>((resolve, reject) => {
      const lines = readline.createInterface({ input: control });
      lines.on('line', (line) => {
        let msg: { ready?: boolean; id?: string; result?: string | null; error?: string; exitCode?: number };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          return; // a runtime that writes garbage on its control channel only hurts its own calls
        }
        if (msg.ready) {
          child.stderr!.off('data', collectStartup);
          resolve();
          return;
        }
        if (this.pending && msg.id === this.pending.id) {
          this.pending.resolve({
            result: typeof msg.result === 'string' ? msg.result : null,
            error: typeof msg.error === 'string' ? msg.error : undefined,
            exitCode: typeof msg.exitCode === 'number' ? msg.exitCode : 1,
          });
        }
      });
      void this.exited!.then((code) => {
        reject(
          new Error(
            `the ${this.language} sandbox exited during start-up (code ${code}): ${Buffer.concat(startupErr).toString().slice(0, 2000)}`,
          ),
        );
      });
    });
  }
}

/** Host path of a module directory (mounted read-only at /opt/wds/node_modules/<name>). */
export function moduleMount(name: string): Mount {
  const dir = path.dirname(require.resolve(`${name}/package.json`));
  return { from: dir, to: `/opt/wds/node_modules/${name}` };
}

/** Halves the longest of stdout, stderr and result until the reply's JSON fits `budget` bytes. */
export function fitReply(reply: SessionExecuteReply, budget: number): SessionExecuteReply {
  let out = reply;
  for (let i = 0; i < 40 && Buffer.byteLength(JSON.stringify(out)) > budget; i++) {
    const fields = (['stdout', 'stderr', 'result'] as const).filter((f) => typeof out[f] === 'string');
    const longest = fields.reduce((a, b) => ((out[b] ?? '').length > (out[a] ?? '').length ? b : a));
    const value = out[longest] ?? '';
    out = { ...out, [longest]: value.slice(0, Math.floor(value.length / 2)), truncated: true };
  }
  return out;
}
