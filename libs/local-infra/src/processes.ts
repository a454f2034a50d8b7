import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A server process this module started; `stop()` ends it and waits for the exit. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Resolves when the process exits, for whatever reason (a supervisor restarts it on this). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export function exitOf(child: ChildProcess): RunningServer['exited'] {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * A port free to listen on, for a server started next. Chosen below the kernel's ephemeral range
 * (`/proc/sys/net/ipv4/ip_local_port_range`): a port the kernel hands out for `listen(0)` is also
 * one it hands out as the local port of outgoing connections, so between this check and the
 * server's bind a client connection could take it (a gateway met EADDRINUSE for 45 s that way).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 100 && low > PRIVATE_PORTS_FROM + 1000; attempt++) {
    const port = PRIVATE_PORTS_FROM + Math.floor(Math.random() * (low - PRIVATE_PORTS_FROM));
    if (await canListen(port)) return port;
  }
  return kernelPort();
}

/** Lowest port tried by `freePort` (above the well-known and most registered service ports). */
const PRIVATE_PORTS_FROM = 20000;

function ephemeralLow(): number {
  try {
    const low = Number(
      fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Whether a server can listen on `port` on every address (as the services do) right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export function findBinary(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [
    ...extraDirs,
    ...(process.env.PATH ?? '').split(':'),
    '/usr/sbin',
    '/usr/local/bin',
    '/usr/bin',
  ];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const dir = path.join(base, v, 'bin');
    if (fs.existsSync(path.join(dir, 'postgres'))) return dir;
  }
  return undefined;
}

/**
 * Whether `pid` holds the socket listening on `port` (Linux: /proc/net/tcp* and /proc/<pid>/fd);
 * undefined where /proc cannot tell.
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  const suffix = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  let readable = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    readable = true;
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address, state 0A = LISTEN, inode
      if (cols.length > 9 && cols[3] === '0A' && cols[1].endsWith(suffix)) inodes.add(cols[9]);
    }
  }
  if (!readable) return undefined;
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && inodes.has(m[1])) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/**
 * Waits until the child listens on `port`. A connection alone is not proof: another server (a
 * second stack starting at the same moment) may hold the port, and our child is about to exit
 * for it; so the listening socket must be the child's where /proc can tell.
 */
async function waitForPort(
  port: number,
  child: ChildProcess,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} while starting`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok && (child.pid === undefined || listensOn(child.pid, port) !== false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
}

/**
 * The command and arguments that run `command` so that Linux sends it `signal` when the process
 * spawning it (this one, or rather the thread calling spawn: call it from the main thread) dies:
 * util-linux's `setpriv --pdeathsig`, which then executes `command` in its place (same pid). A
 * process started this way never outlives a parent killed with SIGKILL (a test runner, a bench,
 * `npm start`). Where setpriv is missing (not Linux), the command is returned unchanged.
 */
export function withParentDeathSignal(
  command: string,
  args: string[],
  signal: 'TERM' | 'INT' = 'TERM',
): [string, string[]] {
  const setpriv = process.platform === 'linux' ? findBinary('setpriv') : undefined;
  return setpriv ? [setpriv, ['--pdeathsig', signal, '--', command, ...args]] : [command, args];
}

/** Sends `signal` to a child process and resolves once it exited (SIGKILL after `graceMs`). */
export function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 10_000,
): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

function tail(file: string, bytes = 4000): string {
  try {
    const buf = fs.readFileSync(file);
    return buf.subarray(Math.max(0, buf.length - bytes)).toString('utf8');
  } catch {
    return '';
  }
}

export interface NatsOptions {
  /** JetStream store directory (created). */
  dataDir: string;
  port?: number;
  /** Max payload in bytes (default 1 MiB, the NATS default). */
  maxPayload?: number;
  /**
   * Clients must present this token (letters, digits, `-`, `_`); the returned url carries it as
   * `nats://<token>@127.0.0.1:<port>`, which `Messaging.connect` turns into the token option. A
   * client of another server on the same machine (a second stack that took this port while this
   * server was down) is then refused instead of joining the wrong one.
   */
  token?: string;
}

const NATS_TOKEN = /^[A-Za-z0-9_-]{16,256}$/;

/** Starts nats-server with JetStream enabled, listening on 127.0.0.1. */
export async function startNats(opts: NatsOptions): Promise<RunningServer> {
  const bin = findBinary('nats-server', [path.join(process.env.HOME ?? '/root', 'go', 'bin')]);
  if (!bin) throw new Error('nats-server not found: install it (apt-get install -y nats-server)');
  if (opts.token !== undefined && !NATS_TOKEN.test(opts.token)) {
    throw new Error('NATS token: 16 to 256 letters, digits, "-" or "_"');
  }
  const port = opts.port ?? (await freePort());
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const logFile = path.join(opts.dataDir, 'nats-server.log');
  const confFile = path.join(opts.dataDir, 'nats-server.conf');
  fs.writeFileSync(
    confFile,
    [
      `host: 127.0.0.1`,
      `port: ${port}`,
      `max_payload: ${opts.maxPayload ?? 1024 * 1024}`,
      `jetstream { store_dir: "${path.join(opts.dataDir, 'jetstream')}" }`,
      ...(opts.token ? [`authorization { token: "${opts.token}" }`] : []),
      '',
    ].join('\n'),
    // The token is a secret: the file is the server's, not every local user's.
    { mode: 0o600 },
  );
  fs.chmodSync(confFile, 0o600);
  const out = fs.openSync(logFile, 'a');
  const [command, args] = withParentDeathSignal(bin, ['-c', confFile]);
  const child = spawn(command, args, { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  try {
    await waitForPort(port, child, 'nats-server');
  } catch (err) {
    await stopChild(child);
    throw new Error(`${(err as Error).message}\n${tail(logFile)}`);
  }
  return {
    url: opts.token ? `nats://${opts.token}@127.0.0.1:${port}` : `nats://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    exited: exitOf(child),
    stop: () => stopChild(child),
  };
}

export interface PostgresOptions {
  /** Cluster directory; initialised with initdb when empty. */
  dataDir: string;
  port?: number;
  user?: string;
  password?: string;
  /**
   * Passwords the user may still have in an existing cluster (one created before `password` was
   * chosen): when `password` is refused and one of these is accepted, the user's password is
   * changed to `password` before this returns.
   */
  previousPasswords?: string[];
  database?: string;
  /**
   * Crash-safe settings (fsync, synchronous commit, full page writes), for data that must survive
   * a machine crash (`npm start`). Off by default: tests and benchmarks use throwaway clusters.
   */
  durable?: boolean;
}

/**
 * Starts a PostgreSQL cluster on 127.0.0.1 from the local binaries. As root the server runs as
 * the `postgres` system user (PostgreSQL refuses to run as root).
 */
export async function startPostgres(opts: PostgresOptions): Promise<RunningServer> {
  const binDir = postgresBinDir() ?? path.dirname(findBinary('postgres') ?? '');
  const postgres = path.join(binDir, 'postgres');
  const initdb = path.join(binDir, 'initdb');
  if (!fs.existsSync(postgres))
    throw new Error('postgres not found: install it (apt-get install -y postgresql)');
  const user = opts.user ?? 'wds';
  const password = opts.password ?? 'wds';
  const database = opts.database ?? 'wds';
  const port = opts.port ?? (await freePort());
  const dataDir = path.resolve(opts.dataDir);
  const asRoot = process.getuid?.() === 0;
  // Spawned directly with the postgres user's uid/gid (not through runuser/su) so the child pid is
  // the postmaster itself and our SIGINT reaches it.
  const ids = asRoot ? postgresUserIds() : undefined;

  fs.mkdirSync(dataDir, { recursive: true });
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dataDir]);
  if (asRoot) {
    // the postgres user needs every parent directory to be traversable by the postgres user.
    let dir = path.dirname(dataDir);
    while (dir !== path.dirname(dir)) {
      try {
        const mode = fs.statSync(dir).mode;
        if ((mode & 0o001) === 0) fs.chmodSync(dir, mode | 0o001);
      } catch {
        break;
      }
      dir = path.dirname(dir);
    }
  }
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    const pwFile = path.join(dataDir, '..', `.pgpass-init-${process.pid}`);
    fs.writeFileSync(pwFile, password, { mode: 0o644 });
    try {
      execFileSync(
        initdb,
        ['-D', dataDir, '-U', user, '--pwfile', pwFile, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-locale'],
        { stdio: 'pipe', ...ids },
      );
    } finally {
      fs.rmSync(pwFile, { force: true });
    }
  }
  const logFile = path.join(dataDir, 'postgres.log');
  if (asRoot && !fs.existsSync(logFile)) {
    fs.writeFileSync(logFile, '');
    execFileSync('chown', ['postgres:postgres', logFile]);
  }
  const out = fs.openSync(logFile, 'a');
  // When the process that started it dies without stopping it: SIGINT, PostgreSQL's fast shutdown.
  const [command, args] = withParentDeathSignal(
    postgres,
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
      '-k',
      '',
      '-c',
      'max_connections=300',
      ...(opts.durable
        ? // After a crash the server syncs its whole data directory before replaying WAL: one
          // syncfs() instead of an fsync per file (seconds of a restart after a SIGKILL).
          ['-c', 'recovery_init_sync_method=syncfs']
        : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      '-c',
      'shared_buffers=256MB',
    ],
    'INT',
  );
  const child = spawn(command, args, { stdio: ['ignore', out, out], ...ids });
  fs.closeSync(out);
  try {
    await waitForPort(port, child, 'postgres');
  } catch (err) {
    await stopChild(child, 'SIGINT');
    throw new Error(`${(err as Error).message}\n${tail(logFile)}`);
  }
  const adminUrl = `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  await ensureDatabase(adminUrl, database, { previousPasswords: opts.previousPasswords });
  return {
    url: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    port,
    pid: child.pid,
    exited: exitOf(child),
    // SIGINT = PostgreSQL "fast shutdown": active transactions rolled back, clean checkpoint.
    stop: () => stopChild(child, 'SIGINT', 20_000),
  };
}

function postgresUserIds(): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line)
    throw new Error('running as root but there is no "postgres" system user (apt-get install -y postgresql)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Creates `database` if it does not exist, retrying while the server finishes starting. */
export async function ensureDatabase(
  adminUrl: string,
  database: string,
  opts: { previousPasswords?: string[] } = {},
): Promise<void> {
  // pg is loaded lazily so this module stays usable by scripts that never touch PostgreSQL.
  const { Client } = await import('pg');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new Client({ connectionString: adminUrl });
    try {
      await client.connect();
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // 28P01 = invalid password: a cluster still on an earlier password gets the current one.
      if (code === '28P01' && (await changePassword(adminUrl, opts.previousPasswords ?? []))) continue;
      // 57P03 = the database system is starting up
      if (Date.now() > deadline || (code !== '57P03' && code !== 'ECONNREFUSED' && code !== '42P04')) {
        if (code === '42P04') return; // created concurrently
        throw err;
      }
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * Signs in with each of `previous` in turn; on the first accepted, sets the user's password to the
 * one `url` carries. False when none is accepted.
 */
async function changePassword(url: string, previous: string[]): Promise<boolean> {
  const { Client } = await import('pg');
  const target = new URL(url);
  const wanted = decodeURIComponent(target.password);
  for (const candidate of previous) {
    if (candidate === wanted) continue;
    const old = new URL(url);
    old.password = encodeURIComponent(candidate);
    const client = new Client({ connectionString: old.toString() });
    try {
      await client.connect();
    } catch {
      await client.end().catch(() => undefined);
      continue;
    }
    try {
      // ALTER ROLE takes no bind parameters: the literal is quoted (and the statement not logged).
      await client.query('SET log_statement = none').catch(() => undefined);
      await client.query(`ALTER ROLE CURRENT_USER PASSWORD '${wanted.replace(/'/g, "''")}'`);
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return false;
}
