'use strict';
// NATS and PostgreSQL for `npm start`, kept under WDS_DATA_DIR so a second start reuses the data.
// Process launching itself is libs/local-infra's (built output; this runs after the build).
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const log = require('./log');
const { ROOT } = require('./provision');

function dataDir() {
  return path.resolve(ROOT, process.env.WDS_DATA_DIR || '.data');
}

function localInfra() {
  const dist = path.join(ROOT, 'libs', 'local-infra', 'dist', 'index.js');
  if (!fs.existsSync(dist))
    throw new Error(`${dist} is missing: build first (npx tsc -b tsconfig.build.json)`);
  return require(dist);
}

function isPortFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function choosePort(preferred, what) {
  if (await isPortFree(preferred)) return preferred;
  const port = await localInfra().freePort();
  log.info(`port ${preferred} is taken: ${what} will listen on ${port}`);
  return port;
}

/**
 * The port asked for in `envName` (`WDS_NATS_PORT`, `WDS_POSTGRES_PORT`): unset or empty = the
 * well-known port when free, else a free one; `0` = a free private port (what test stacks running
 * side by side use, so one never takes another's well-known port while that one's server restarts);
 * N = exactly N.
 */
function portSetting(envName) {
  const raw = (process.env[envName] ?? '').trim();
  if (raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${envName} must be a port number (0 = any free port), got "${raw}"`);
  }
  return port;
}

async function startInfraServer(envName, preferred, what, start) {
  const asked = portSetting(envName);
  if (asked === undefined) return startOnPort(preferred, what, start);
  if (asked === 0) return start(await localInfra().freePort());
  if (!(await isPortFree(asked))) throw new Error(`${envName}=${asked}: the port is taken`);
  return start(asked);
}

/**
 * A secret of this data directory (the NATS token, the PostgreSQL password): generated on the first
 * start and kept in `<data dir>/secrets/<name>` (directory 700, file 600), so the services of this
 * stack, and only they, can sign in to its servers: a service never joins another stack's NATS or
 * PostgreSQL that took a port while this stack's server was restarting, and no other local user can
 * read the queues or the database without root.
 */
function stackSecret(dir, name) {
  const secrets = path.join(dir, 'secrets');
  fs.mkdirSync(secrets, { recursive: true, mode: 0o700 });
  fs.chmodSync(secrets, 0o700);
  return keptSecret(path.join(secrets, name), () => crypto.randomBytes(24).toString('hex'));
}

/**
 * The value kept in `file`, else `generate()`'s, written there first (mode 600, whole and synced
 * before it is used: a crash never leaves a half-written secret).
 */
function keptSecret(file, generate) {
  try {
    const value = fs.readFileSync(file, 'utf8').trim();
    if (value) return value;
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  const value = generate();
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, `${value}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return value;
}

/** The PostgreSQL password `npm start` gave clusters before they had one of their own. */
const LEGACY_POSTGRES_PASSWORD = 'wds';

/**
 * Starts a server on the preferred port when it is free, else on a free one. Another process (a
 * second stack starting at the same moment) may take the preferred port between the check and the
 * bind: then the start is retried once on a free port.
 */
async function startOnPort(preferred, what, start) {
  const port = await choosePort(preferred, what);
  try {
    return await start(port);
  } catch (err) {
    if (port !== preferred || (await isPortFree(preferred))) throw err;
    const other = await localInfra().freePort();
    log.info(`port ${preferred} was taken while ${what} started: it will listen on ${other}`);
    return start(other);
  }
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === 'EPERM';
  }
  try {
    // A zombie is dead for our purposes (it holds no port and no lock).
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

// A stale pid file may name a pid that now belongs to an unrelated process.
function isStackProcess(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start.js');
  } catch {
    return true;
  }
}

/** One `npm start` per data directory: two would fight over the same PostgreSQL cluster. */
function acquireLock(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'stack.pid');
  try {
    const other = Number(fs.readFileSync(file, 'utf8').trim());
    if (other && other !== process.pid && pidAlive(other) && isStackProcess(other)) {
      throw new Error(`another stack (pid ${other}) is running with the data directory ${dir}`);
    }
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  fs.writeFileSync(file, `${process.pid}\n`);
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file);
    } catch {
      // already gone
    }
  };
}

function checkNoOrphanPostgres(pgDir) {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (pid && pidAlive(pid)) {
    throw new Error(
      `PostgreSQL (pid ${pid}) from an earlier run still uses ${pgDir}; stop it (kill -INT ${pid}) and start again`,
    );
  }
}

/**
 * The bootstrap API key: WDS_BOOTSTRAP_API_KEY when given, else one generated on the first start
 * and kept (mode 600) in the data directory so the user always has a working key.
 */
function bootstrapKey(dir) {
  if (process.env.WDS_BOOTSTRAP_API_KEY) return { key: process.env.WDS_BOOTSTRAP_API_KEY, source: 'env' };
  const file = path.join(dir, 'bootstrap-api-key');
  return { key: keptSecret(file, generateKey), source: file };
}

/** Same shape as the keys the gateway issues: `wds_<12-char lookup prefix>_<256-bit secret>`. */
function generateKey() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let prefix = '';
  for (let i = 0; i < 12; i++) prefix += alphabet[crypto.randomInt(alphabet.length)];
  return `wds_${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Starts what is not given by NATS_URL / DATABASE_URL. Returns URLs, pids and a stop function. */
async function startInfra(dir) {
  const started = [];
  const result = { natsUrl: process.env.NATS_URL, databaseUrl: process.env.DATABASE_URL, pids: {}, started };
  try {
    if (!result.natsUrl) {
      const token = stackSecret(dir, 'nats-token');
      const startNats = (port) => localInfra().startNats({ dataDir: path.join(dir, 'nats'), port, token });
      const nats = await startInfraServer('WDS_NATS_PORT', 4222, 'NATS', startNats);
      started.push({ name: 'nats', server: nats, start: startNats });
      result.natsUrl = nats.url;
      result.pids.nats = nats.pid;
      log.info(`NATS (JetStream) on ${redact(nats.url)}, data in ${path.join(dir, 'nats')}`);
    } else {
      log.info(`using NATS at ${redact(result.natsUrl)} (NATS_URL)`);
    }
    if (!result.databaseUrl) {
      const pgDir = path.join(dir, 'postgres');
      checkNoOrphanPostgres(pgDir);
      // The stack's data must survive a machine crash, unlike the tests' throwaway clusters.
      const password = stackSecret(dir, 'postgres-password');
      // A cluster created before it had its own password is moved to it on this start.
      const startPg = (port) =>
        localInfra().startPostgres({
          dataDir: pgDir,
          port,
          durable: true,
          password,
          previousPasswords: [LEGACY_POSTGRES_PASSWORD],
        });
      const pg = await startInfraServer('WDS_POSTGRES_PORT', 5432, 'PostgreSQL', startPg);
      started.push({ name: 'postgres', server: pg, dataDir: pgDir, start: startPg });
      result.databaseUrl = pg.url;
      result.pids.postgres = pg.pid;
      log.info(`PostgreSQL on 127.0.0.1:${pg.port}, data in ${pgDir}`);
    } else {
      log.info(`using PostgreSQL at ${redact(result.databaseUrl)} (DATABASE_URL)`);
    }
  } catch (err) {
    await stopInfra(result);
    throw err;
  }
  return result;
}

/**
 * Restarts NATS or PostgreSQL when it exits without being asked to (killed, crashed), on the same
 * port and data directory, so the services' connections find it again: at once, then with a
 * back-off doubling to MAX_INFRA_BACKOFF_MS while restarts keep failing (a SIGKILLed postmaster's
 * backends may hold its shared memory for a moment). `onSpawn(name, pid)` announces each new pid.
 */
function superviseInfra(infra, onSpawn) {
  for (const entry of infra.started) watchInfra(infra, entry, onSpawn);
}

const MIN_INFRA_BACKOFF_MS = 250;
const MAX_INFRA_BACKOFF_MS = 10_000;

function watchInfra(infra, entry, onSpawn) {
  const server = entry.server;
  void server.exited.then(async ({ code, signal }) => {
    if (infra.stopping || entry.server !== server) return;
    log.warn(
      `${entry.name} exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); restarting it`,
    );
    for (let attempt = 0; !infra.stopping; attempt++) {
      await new Promise((r) =>
        setTimeout(r, Math.min(MAX_INFRA_BACKOFF_MS, MIN_INFRA_BACKOFF_MS * 2 ** attempt)),
      );
      if (infra.stopping) return;
      try {
        const next = await entry.start(server.port);
        if (infra.stopping) {
          await next.stop();
          return;
        }
        entry.server = next;
        entry.restarts = (entry.restarts || 0) + 1;
        infra.pids[entry.name] = next.pid;
        log.info(`${entry.name} restarted on port ${next.port} (pid ${next.pid})`);
        if (next.pid) onSpawn(entry.name, next.pid);
        watchInfra(infra, entry, onSpawn);
        return;
      } catch (err) {
        // Services keep the server's address: only that port will do. A server another process
        // started there meanwhile refuses this stack's services (it does not know their credentials).
        const held = (await isPortFree(server.port))
          ? ''
          : `; port ${server.port} is held by another process`;
        log.warn(`restarting ${entry.name} failed (${err.message.split('\n')[0]}${held}); trying again`);
      }
    }
  });
}

/** PostgreSQL first (it may still flush), then NATS. */
async function stopInfra(infra) {
  infra.stopping = true;
  for (const { name, server, dataDir: pgDir } of [...infra.started].reverse()) {
    try {
      if (pgDir) signalPostmaster(pgDir);
      await server.stop();
      log.info(`${name} stopped`);
    } catch (err) {
      log.warn(`stopping ${name}: ${err.message}`);
    }
  }
  infra.started.length = 0;
}

/**
 * As root, PostgreSQL runs under `runuser`, which ignores SIGINT (and turns SIGTERM into a
 * SIGKILL two seconds later), so the fast shutdown is requested from the postmaster itself;
 * runuser then exits with it.
 */
function signalPostmaster(pgDir) {
  try {
    const pid = Number(fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid) process.kill(pid, 'SIGINT');
  } catch {
    // not running, or not ours to signal: server.stop() still applies
  }
}

function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    // nats://<token>@host: the user part is the secret.
    else if (u.username) u.username = '***';
    return u.toString();
  } catch {
    return url;
  }
}

module.exports = {
  localInfra,
  dataDir,
  acquireLock,
  bootstrapKey,
  keptSecret,
  startInfra,
  superviseInfra,
  stopInfra,
  pidAlive,
  redact,
};
