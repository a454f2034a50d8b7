import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@wds/local-infra';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const START_SCRIPT = path.join(REPO_ROOT, 'tools', 'stack', 'start.js');
const OUTPUT_KEPT = 64 * 1024;

export interface StackOptions {
  dataDir: string;
  port: number;
  /** A value unique to this test run; every process of the stack inherits it in WDS_E2E_MARK. */
  mark: string;
  env?: Record<string, string>;
}

/** `npm start` (tools/stack/start.js) running as a child process, observed through its output. */
export class StackProcess {
  readonly url: string;
  readonly pids = new Set<number>();
  /** The latest pid announced for each process name, and when it was announced. */
  readonly processes = new Map<string, { pid: number; at: number }>();
  /** PostgreSQL's port, from the stack's start-up line (for checks on the ledger). */
  postgresPort: number | undefined;
  /** NATS's port, from the stack's start-up line. */
  natsPort: number | undefined;
  team: string | undefined;
  private readonly dataDir: string;
  private readonly child: ChildProcess;
  private output = '';
  private exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readyResolvers: Array<() => void> = [];

  constructor(opts: StackOptions) {
    this.url = `http://127.0.0.1:${opts.port}`;
    this.dataDir = opts.dataDir;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      WDS_DATA_DIR: opts.dataDir,
      PORT: String(opts.port),
      WDS_SKIP_PROVISION: '1',
      WDS_SKIP_BUILD: '1',
      LOG_LEVEL: 'warn',
      WDS_E2E_MARK: opts.mark,
      // No embedded LLM unless a test asks for one (it costs a model load per stack).
      WDS_LOCAL_MODEL: 'none',
      // docs-search ranks by full text unless a suite asks for its embedding model: computing the
      // vectors of the whole reference costs ~40 s of CPU in every stack otherwise.
      WDS_DOCS_EMBEDDING_DIR: '',
      // Private ports: stacks of suites running side by side never take one another's NATS or
      // PostgreSQL port while its server restarts (a fault test kills them).
      WDS_NATS_PORT: '0',
      WDS_POSTGRES_PORT: '0',
      ...opts.env,
    };
    // The stack must start its own servers, as `npm start` does on a developer machine, unless the
    // test hands it one on purpose (opts.env).
    if (!opts.env?.NATS_URL) delete env.NATS_URL;
    if (!opts.env?.DATABASE_URL) delete env.DATABASE_URL;
    this.child = spawn(process.execPath, [START_SCRIPT], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exit = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let pending = '';
    const onData = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-OUTPUT_KEPT);
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) this.onLine(line);
    };
    this.child.stdout?.on('data', onData);
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-OUTPUT_KEPT);
    });
  }

  /** The stack's own PostgreSQL database, signed in with the password `npm start` keeps for it. */
  get databaseUrl(): string {
    if (!this.postgresPort) throw new Error('the stack has not said where PostgreSQL listens');
    const password = fs.readFileSync(path.join(this.dataDir, 'secrets', 'postgres-password'), 'utf8').trim();
    return `postgres://wds:${encodeURIComponent(password)}@127.0.0.1:${this.postgresPort}/wds`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  tail(chars = 6000): string {
    return this.output.slice(-chars);
  }

  private onLine(line: string): void {
    const proc = /^WDS_PROCESS name=(\S+) pid=(\d+)$/.exec(line);
    if (proc) {
      this.pids.add(Number(proc[2]));
      this.processes.set(proc[1], { pid: Number(proc[2]), at: Date.now() });
    }
    const pg = /PostgreSQL on 127\.0\.0\.1:(\d+)/.exec(line);
    if (pg) this.postgresPort = Number(pg[1]);
    const nats = /NATS \(JetStream\) on nats:\/\/(?:[^@\s]*@)?127\.0\.0\.1:(\d+)/.exec(line);
    if (nats) this.natsPort = Number(nats[1]);
    const ready = /^WDS_READY url=(\S+) team=(\S+)$/.exec(line);
    if (ready) {
      this.team = ready[2];
      this.readyResolvers.splice(0).forEach((r) => r());
    }
  }

  /** Resolves on the WDS_READY line; rejects with the output tail on timeout or early exit. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.team) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => this.readyResolvers.push(resolve)),
        this.exit.then(({ code, signal }) => {
          throw new Error(`the stack exited (${code ?? signal}) before it was ready:\n${this.tail()}`);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no WDS_READY line within ${timeoutMs / 1000}s:\n${this.tail()}`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `signal` and waits for the exit; rejects when it takes longer than timeoutMs. */
  async stop(signal: NodeJS.Signals, timeoutMs: number): Promise<{ code: number | null; ms: number }> {
    const t0 = Date.now();
    this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    try {
      const { code } = await Promise.race([
        this.exit,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(`the stack did not exit within ${timeoutMs / 1000}s of ${signal}:\n${this.tail()}`),
              ),
            timeoutMs,
          );
        }),
      ]);
      return { code, ms: Date.now() - t0 };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Test clean-up: whatever is still alive dies now. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exit;
    }
  }
}

/** Processes still alive (zombies count as dead) that carry the run's mark in their environment. */
export function markedProcesses(mark: string): string[] {
  const needle = Buffer.from(`WDS_E2E_MARK=${mark}`);
  const alive: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/environ`).includes(needle)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/^\d+ \(.*\) Z/.test(stat)) continue;
      alive.push(
        `${entry} ${fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120)}`,
      );
    } catch {
      // exited meanwhile
    }
  }
  return alive;
}

/**
 * Whether `pid` holds a listening TCP socket (Linux /proc): a service listens (its health port)
 * once its start-up is done, NATS and PostgreSQL once they accept connections.
 */
export function isListening(pid: number): boolean {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols.length > 9 && cols[3] === '0A') inodes.add(cols[9]);
      }
    } catch {
      // no such table
    }
  }
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return true;
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // gone
  }
  return false;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** SIGKILL for anything the mark still finds; used only after a failed test. */
export function killMarked(mark: string): void {
  for (const line of markedProcesses(mark)) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // gone
    }
  }
}

export interface E2eStack {
  stack: StackProcess;
  /** The stack's own port (also its public base URL's). */
  port: number;
  /** Stops the stack, kills anything it left behind and deletes its data directory. */
  stop(): Promise<void>;
}

/** A fresh stack on `port` in a temporary data directory, ready to serve. */
export async function startE2eStack(opts: {
  name: string;
  env: Record<string, string>;
  readyTimeoutMs: number;
  port: number;
}): Promise<E2eStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `wds-e2e-${opts.name}-`));
  const mark = randomBytes(8).toString('hex');
  const stack = new StackProcess({ dataDir, port: opts.port, mark, env: opts.env });
  const stop = async () => {
    await stack.kill();
    killMarked(mark);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await stack.ready(opts.readyTimeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { stack, port: opts.port, stop };
}

/**
 * A fresh stack on a free port for a suite that serves its own pages: the bootstrap team's key,
 * the admin token when given, the suite's local servers on the private-network allowlist, and the
 * stack's own address as its public base URL (`publicBaseUrl` names another; `null` leaves it
 * unset). `env` holds what differs between suites, and wins over all of these.
 */
export async function startSiteStack(opts: {
  name: string;
  readyTimeoutMs: number;
  key: string;
  adminToken?: string;
  sites: ReadonlyArray<{ port: number }>;
  publicBaseUrl?: ((port: number) => string) | null;
  env?: Record<string, string>;
}): Promise<E2eStack> {
  const port = await freePort();
  const publicBaseUrl =
    opts.publicBaseUrl === null ? undefined : (opts.publicBaseUrl ?? ((p) => `http://127.0.0.1:${p}`))(port);
  return startE2eStack({
    name: opts.name,
    port,
    readyTimeoutMs: opts.readyTimeoutMs,
    env: {
      WDS_BOOTSTRAP_API_KEY: opts.key,
      ...(opts.adminToken ? { WDS_ADMIN_TOKEN: opts.adminToken } : {}),
      WDS_PRIVATE_NETWORK_ALLOWLIST: opts.sites.map((s) => `127.0.0.1:${s.port}`).join(','),
      ...(publicBaseUrl ? { WDS_PUBLIC_BASE_URL: publicBaseUrl } : {}),
      ...opts.env,
    },
  });
}

/**
 * `npm start`'s embedded model at its smallest (SmolLM2-135M: plumbing, not answer quality), with
 * no model call cut short on a loaded machine.
 */
export function smallLocalModel(maxOutputTokens: number): Record<string, string> {
  return {
    WDS_LOCAL_MODEL: 'smollm2-135m',
    WDS_LOCAL_MODEL_CONTEXT: '4096',
    WDS_LLM_MAX_OUTPUT_TOKENS: String(maxOutputTokens),
    WDS_LLM_TIMEOUT_MS: '900000',
  };
}
