'use strict';
// Browser sessions through the gateway on 127.0.0.1: NATS + PostgreSQL from libs/local-infra,
// billing, browser-pool and the gateway as their own processes (apps/*/dist/main.js). Figures:
// session create p50/p95 (baseline, same process: launching chromium-headless-shell with
// playwright-core and opening a page), execute round trip of a trivial node/python/bash call
// (baseline: GET /v2/browser, a trivial authenticated gateway call answered over NATS), and PSS per
// idle session (every process of the sessions' sandbox uids). Run after the build:
//   npx tsc -b tsconfig.build.json && node tools/bench/browser-sessions.bench.js
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const ROOT = path.resolve(__dirname, '..', '..');
const CREATES = Number(process.env.BENCH_CREATES ?? 10);
const EXECUTES = Number(process.env.BENCH_EXECUTES ?? 30);
const IDLE_SESSIONS = Number(process.env.BENCH_IDLE_SESSIONS ?? 5);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const UID_BASE = 260_000;
const out = (s) => process.stdout.write(`${s}\n`);
const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const fmt = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(0)} ms, p95 ${pct(s, 95).toFixed(0)} ms (n=${s.length})`;
};

function spawnService(name, env, logDir) {
  const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const child = spawn(process.execPath, [path.join(ROOT, 'apps', name, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, WDS_INSTANCE_ID: `${name}-bench` },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  return child;
}

async function waitFor(what, fn, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await fn()) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`${what} not ready`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** PSS (bytes) of every process whose real uid is in [from, to). */
function pssOfUids(from, to) {
  let total = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))[1]);
      if (uid < from || uid >= to) continue;
      const kb = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${d}/smaps_rollup`, 'utf8'));
      if (kb) total += Number(kb[1]) * 1024;
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

async function main() {
  const { startNats, startPostgres, freePort } = require(path.join(ROOT, 'libs', 'local-infra', 'dist'));
  const { chromium } = require('playwright-core');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-bench-sessions-'));
  const cleanups = [];
  try {
    const nats = await startNats({ dataDir: path.join(dir, 'nats') });
    cleanups.push(() => nats.stop());
    const pg = await startPostgres({ dataDir: path.join(dir, 'pg') });
    cleanups.push(() => pg.stop());
    const port = await freePort();
    const env = {
      NATS_URL: nats.url,
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'warn',
      HEALTH_PORT: '0',
      WDS_BROWSER_PROCESSES: '1',
      WDS_BROWSER_SESSIONS: String(Math.max(IDLE_SESSIONS, 2)),
      WDS_SANDBOX_UID_BASE: String(UID_BASE),
    };
    const logDir = path.join(dir, 'logs');
    fs.mkdirSync(logDir);
    const children = ['billing', 'browser-pool', 'gateway'].map((name) =>
      spawnService(
        name,
        name === 'gateway' ? { ...env, PORT: String(port), WDS_ADMIN_TOKEN: ADMIN_TOKEN } : env,
        logDir,
      ),
    );
    cleanups.push(async () => {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(
        children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
      );
    });
    const gw = `http://127.0.0.1:${port}`;
    const call = async (method, route, body, key) => {
      const res = await fetch(`${gw}${route}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => undefined) };
    };
    await waitFor('gateway', async () => (await fetch(`${gw}/health/ready`)).status === 200);
    const team = await call(
      'POST',
      '/admin/v1/teams',
      { name: 'bench', credits: 1_000_000, limits: { maxBrowserSessions: 50, maxConcurrency: 50 } },
      ADMIN_TOKEN,
    );
    const key = team.body.apiKey;
    await waitFor(
      'sessions',
      async () => (await call('POST', '/v2/browser', { ttl: 30 }, key)).status === 200,
    );
    for (const s of (await call('GET', '/v2/browser?status=active', undefined, key)).body.sessions)
      await call('DELETE', `/v2/browser/${s.id}`, undefined, key);

    out('machine: 2 shared cores; figures taken under contention from other work on the host');
    // Baseline: a bare headless-shell launch + page in this process.
    const base = [];
    for (let i = 0; i < Math.min(CREATES, 5); i++) {
      const t = performance.now();
      const b = await chromium.launch({
        executablePath: '/usr/lib/chromium/chromium-headless-shell',
        args: ['--no-sandbox'],
      });
      await (await b.newPage()).goto('about:blank');
      base.push(performance.now() - t);
      await b.close();
    }
    const creates = [];
    for (let i = 0; i < CREATES; i++) {
      const t = performance.now();
      const r = await call('POST', '/v2/browser', { ttl: 60 }, key);
      creates.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
      await call('DELETE', `/v2/browser/${r.body.id}`, undefined, key);
    }
    out(`session create (POST /v2/browser): ${fmt(creates)}; baseline chromium.launch + page: ${fmt(base)}`);

    const { body: session } = await call('POST', '/v2/browser', { ttl: 300 }, key);
    const trivial = { node: '1 + 1', python: '1 + 1', bash: 'true' };
    const listTimes = [];
    for (let i = 0; i < EXECUTES; i++) {
      const t = performance.now();
      await call('GET', '/v2/browser', undefined, key);
      listTimes.push(performance.now() - t);
    }
    out(`baseline GET /v2/browser: ${fmt(listTimes)}`);
    for (const [language, code] of Object.entries(trivial)) {
      const first = performance.now();
      await call('POST', `/v2/browser/${session.id}/execute`, { code, language }, key);
      const cold = performance.now() - first;
      const times = [];
      for (let i = 0; i < EXECUTES; i++) {
        const t = performance.now();
        const r = await call('POST', `/v2/browser/${session.id}/execute`, { code, language }, key);
        times.push(performance.now() - t);
        if (r.body.exitCode !== 0) throw new Error(`${language}: ${JSON.stringify(r.body)}`);
      }
      out(
        `execute ${language} (trivial, warm): ${fmt(times)}; first call (runtime start) ${cold.toFixed(0)} ms`,
      );
    }
    await call('DELETE', `/v2/browser/${session.id}`, undefined, key);

    const ids = [];
    for (let i = 0; i < IDLE_SESSIONS; i++)
      ids.push((await call('POST', '/v2/browser', { ttl: 300 }, key)).body.id);
    for (const id of ids)
      await call('POST', `/v2/browser/${id}/execute`, { code: '1', language: 'node' }, key);
    await new Promise((r) => setTimeout(r, 3000));
    const browserPss = pssOfUids(UID_BASE, UID_BASE + 2 * IDLE_SESSIONS) / IDLE_SESSIONS;
    let browserOnly = 0;
    for (let slot = 0; slot < IDLE_SESSIONS; slot++)
      browserOnly += pssOfUids(UID_BASE + 2 * slot, UID_BASE + 2 * slot + 1);
    out(
      `PSS per idle session (${IDLE_SESSIONS} sessions, about:blank): ${(browserPss / 2 ** 20).toFixed(0)} MB with a warm node runtime, ` +
        `${(browserOnly / IDLE_SESSIONS / 2 ** 20).toFixed(0)} MB of it the browser`,
    );
    for (const id of ids) await call('DELETE', `/v2/browser/${id}`, undefined, key);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  },
);
