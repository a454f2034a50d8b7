'use strict';
// Browser sessions through the gateway on 127.0.0.1: NATS + PostgreSQL from libs/local-infra,
// billing, scraper, browser-pool and the gateway as their own processes (apps/*/dist/main.js).
// Two browser-pool runs in one process, differing only by WDS_SESSION_WARM_RUNTIMES: "before"
// (2 warm lean browsers, no runtime started with them: the code as of the warm-browser work) and
// "after" (2 warm browsers, each with a node runtime started), each with: session
// create p50/p95 (baseline: launching chromium-headless-shell with playwright-core and opening a
// page), the first node call of a new session, the first interact call on a scrape (replay of its
// clicks), execute round trips of a trivial node/python/bash call (baseline: GET /v2/browser, a
// trivial authenticated gateway call answered over NATS), and PSS per idle session (the processes
// of the session's sandbox uids: browser, runtime started ahead, runtime after a call) and per warm
// browser waiting. The "after" run also holds sessions at once, each running one execute
// (`await page.title()`) every 500 ms, at rising counts, with execute p50/p95 per count.
// The load average is printed with each figure (the machine is shared).
// Run after the build:
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
const INTERACTS = Number(process.env.BENCH_INTERACTS ?? 5);
/** Pause between warm creates, so that the replica refills its warm browsers (a steady rate). */
const CREATE_GAP_MS = Number(process.env.BENCH_CREATE_GAP_MS ?? 3000);
/** Wait for the warm browsers (and their runtimes) to be refilled before a memory reading. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 8000);
const LOAD_LEVELS = (process.env.BENCH_LOAD_LEVELS ?? '5,10,15,20,25').split(',').map(Number);
const LOAD_ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 10);
const CAPACITY = Math.max(IDLE_SESSIONS + 2, ...LOAD_LEVELS) + 2;
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

/** PSS (bytes) of each uid's processes among [from, to). */
function pssByUid(from, to) {
  const by = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))[1]);
      if (uid < from || uid >= to) continue;
      const kb = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${d}/smaps_rollup`, 'utf8'));
      if (kb) by.set(uid, (by.get(uid) ?? 0) + Number(kb[1]) * 1024);
    } catch {
      // exited meanwhile
    }
  }
  return by;
}

/** A page with a counter button (the interact replay clicks it). */
function startSite() {
  const http = require('node:http');
  const page =
    '<!doctype html><title>bench</title><p id="n">0</p>' +
    '<button id="inc" onclick="n.textContent = String(Number(n.textContent) + 1)">+</button>';
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
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
    const site = await startSite();
    cleanups.push(() => new Promise((r) => site.close(r)));
    const siteUrl = `http://127.0.0.1:${site.address().port}/`;
    const sessionDir = path.join(dir, 'sessions');
    const port = await freePort();
    const env = {
      NATS_URL: nats.url,
      DATABASE_URL: pg.url,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      HEALTH_PORT: '0',
      WDS_BROWSER_PROCESSES: '1',
      WDS_BROWSER_SESSIONS: String(CAPACITY),
      WDS_SANDBOX_UID_BASE: String(UID_BASE),
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.address().port}`,
      WDS_SESSION_DIR: sessionDir,
    };
    // BENCH_LOG_DIR keeps the services' logs (e.g. BENCH_LOG_LEVEL=debug: browser-pool logs each
    // create's phases, 'session created').
    const logDir = process.env.BENCH_LOG_DIR ?? path.join(dir, 'logs');
    fs.mkdirSync(logDir, { recursive: true });
    const children = ['billing', 'scraper', 'gateway'].map((name) =>
      spawnService(
        name,
        name === 'gateway' ? { ...env, PORT: String(port), WDS_ADMIN_TOKEN: ADMIN_TOKEN } : env,
        logDir,
      ),
    );
    const stop = async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await gone;
    };
    cleanups.push(() => Promise.all(children.map(stop)));
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
    // The gateway can be ready before billing serves (503 for the grant): ask again until it does.
    let team;
    await waitFor(
      'billing',
      async () => {
        team = await call(
          'POST',
          '/admin/v1/teams',
          {
            name: 'bench',
            credits: 10_000_000,
            limits: { maxBrowserSessions: 100, maxConcurrency: 100, requestsPerMinute: 1_000_000 },
          },
          ADMIN_TOKEN,
        );
        return team.status !== 503;
      },
      60_000,
    );
    if (!team.body?.apiKey) throw new Error(`team: ${team.status} ${JSON.stringify(team.body)}`);
    const key = team.body.apiKey;

    const startPool = async (extra) => {
      const child = spawnService('browser-pool', { ...env, ...extra }, logDir);
      children.push(child);
      await waitFor(
        'sessions',
        async () => {
          const r = await call('POST', '/v2/browser', { ttl: 30 }, key);
          if (r.status === 200) await call('DELETE', `/v2/browser/${r.body.id}`, undefined, key);
          return r.status === 200;
        },
        180_000,
      );
      return child;
    };
    const create = async (ttl) => {
      const r = await call('POST', '/v2/browser', { ttl }, key);
      if (r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const measureCreates = async (gapMs) => {
      const creates = [];
      for (let i = 0; i < CREATES; i++) {
        await new Promise((r) => setTimeout(r, gapMs));
        const t = performance.now();
        const { id } = await create(60);
        creates.push(performance.now() - t);
        await call('DELETE', `/v2/browser/${id}`, undefined, key);
      }
      return creates;
    };
    const load = () =>
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`;
    /** The sandbox uid of a session's browser (its profile directory's owner); its code runs as uid + 1. */
    const browserUid = (id) => fs.statSync(path.join(sessionDir, id, 'browser')).uid;
    const sum = (by, uids) => uids.reduce((a, u) => a + (by.get(u) ?? 0), 0);
    const mb = (b, n) => `${(b / n / 2 ** 20).toFixed(0)} MB`;
    /**
     * PSS per idle session (about:blank): its browser, the code runtime started ahead (if any) before
     * any call, then with a node runtime after one call; and per warm browser waiting (browser and
     * its runtime), the slots no session holds.
     */
    const measureIdle = async () => {
      const ids = [];
      for (let i = 0; i < IDLE_SESSIONS; i++) ids.push((await create(300)).id);
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const uids = ids.map(browserUid);
      let by = pssByUid(UID_BASE, UID_BASE + 2 * CAPACITY);
      const browser = sum(by, uids);
      // Creates back to back: the first ones take warm browsers, the others start their own.
      const ahead = uids.filter((u) => by.get(u + 1));
      const codeAhead = sum(
        by,
        ahead.map((u) => u + 1),
      );
      const warmUids = [...by.keys()].filter((u) => (u - UID_BASE) % 2 === 0 && !uids.includes(u));
      const warm = sum(by, warmUids);
      const warmCode = sum(
        by,
        warmUids.map((u) => u + 1),
      );
      for (const id of ids)
        await call('POST', `/v2/browser/${id}/execute`, { code: '1', language: 'node' }, key);
      await new Promise((r) => setTimeout(r, 3000));
      by = pssByUid(UID_BASE, UID_BASE + 2 * CAPACITY);
      const codeAfter = sum(
        by,
        uids.map((u) => u + 1),
      );
      for (const id of ids) await call('DELETE', `/v2/browser/${id}`, undefined, key);
      const n = IDLE_SESSIONS;
      return (
        `browser ${mb(browser, n)}; runtime started ahead, no call yet: ` +
        `${ahead.length ? `${mb(codeAhead, ahead.length)} in ${ahead.length} of ${n} sessions` : 'none'}; ` +
        `node runtime after one call ${mb(codeAfter, n)} (session with it ${mb(browser + codeAfter, n)}); ` +
        `per warm browser waiting (${warmUids.length}): browser ${warmUids.length ? mb(warm, warmUids.length) : '-'}, ` +
        `its runtime ${warmUids.length ? mb(warmCode, warmUids.length) : '-'}; ${load()}`
      );
    };
    /** The first node call of a new session (create, then at once one trivial call), n = INTERACTS. */
    const measureFirstCall = async () => {
      const firsts = [];
      for (let i = 0; i < INTERACTS; i++) {
        await new Promise((r) => setTimeout(r, CREATE_GAP_MS));
        const { id } = await create(60);
        const t = performance.now();
        const r = await call('POST', `/v2/browser/${id}/execute`, { code: '1 + 1', language: 'node' }, key);
        firsts.push(performance.now() - t);
        if (r.body?.result !== '2') throw new Error(`first call: ${r.status} ${JSON.stringify(r.body)}`);
        await call('DELETE', `/v2/browser/${id}`, undefined, key);
      }
      return `${fmt(firsts)}; ${load()}`;
    };
    const measureExecutes = async () => {
      const session = await create(300);
      const trivial = { node: '1 + 1', python: '1 + 1', bash: 'true' };
      const listTimes = [];
      for (let i = 0; i < EXECUTES; i++) {
        const t = performance.now();
        await call('GET', '/v2/browser', undefined, key);
        listTimes.push(performance.now() - t);
      }
      const lines = [`  baseline GET /v2/browser: ${fmt(listTimes)}`];
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
        lines.push(
          `  execute ${language} (trivial, runtime running): ${fmt(times)}; first call of it ${cold.toFixed(0)} ms`,
        );
      }
      await call('DELETE', `/v2/browser/${session.id}`, undefined, key);
      return `${lines.join('\n')}\n  (${load()})`;
    };
    /** Interact: the first call on a scrape starts a session and replays the scrape's clicks. */
    const measureInteracts = async () => {
      const interacts = [];
      const scrapes = [];
      for (let i = 0; i < INTERACTS; i++) {
        const t = performance.now();
        const r = await call(
          'POST',
          '/v2/scrape',
          {
            url: siteUrl,
            formats: ['markdown'],
            actions: [
              { type: 'click', selector: '#inc' },
              { type: 'click', selector: '#inc' },
            ],
          },
          key,
        );
        scrapes.push(performance.now() - t);
        const jobId = r.body?.data?.metadata?.scrapeId;
        if (!jobId) throw new Error(`scrape: ${r.status} ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, CREATE_GAP_MS));
        const t2 = performance.now();
        const first = await call(
          'POST',
          `/v2/scrape/${jobId}/interact`,
          { code: "await page.textContent('#n')", language: 'node' },
          key,
        );
        interacts.push(performance.now() - t2);
        if (first.body?.result !== '2')
          throw new Error(`interact: ${first.status} ${JSON.stringify(first.body)}`);
        await call('DELETE', `/v2/scrape/${jobId}/interact`, undefined, key);
      }
      return `${fmt(interacts)}; the scrape itself: ${fmt(scrapes)}; ${load()}`;
    };

    out('machine: 2 shared cores; figures taken under contention from other work on the host');
    out(`at start: ${load()}`);
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
    out(`baseline chromium.launch + page: ${fmt(base)}; ${load()}`);

    const runs = [
      ['before', 'no runtime started with the warm browsers', 'none'],
      ['after', 'a node runtime started with each warm browser', 'node'],
    ];
    let pool;
    for (const [name, what, runtimes] of runs) {
      pool = await startPool({
        WDS_SESSION_WARM_BROWSERS: '2',
        WDS_SESSION_LEAN_BROWSER: 'true',
        WDS_SESSION_WARM_RUNTIMES: runtimes,
      });
      out(`${name} (2 warm lean browsers, ${what}, WDS_SESSION_WARM_RUNTIMES='${runtimes}'):`);
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      out(
        `  session create ${fmt(await measureCreates(CREATE_GAP_MS))} (${CREATE_GAP_MS} ms apart); ${load()}`,
      );
      out(`  first node call of a new session (${CREATE_GAP_MS} ms apart): ${await measureFirstCall()}`);
      out(
        `  interact first call (session + replay of 2 clicks + one node call): ${await measureInteracts()}`,
      );
      out(await measureExecutes());
      out(`  PSS per idle session (${IDLE_SESSIONS} sessions, about:blank): ${await measureIdle()}`);
      if (name !== 'after') await stop(pool);
    }

    // Sessions held at once, each running `await page.title()` every 500 ms.
    const held = [];
    try {
      for (const level of LOAD_LEVELS) {
        while (held.length < level) held.push((await create(600)).id);
        await Promise.all(
          held.map((id) =>
            call('POST', `/v2/browser/${id}/execute`, { code: 'await page.title()', language: 'node' }, key),
          ),
        );
        const times = [];
        let failures = 0;
        await Promise.all(
          held.map(async (id, i) => {
            await new Promise((r) => setTimeout(r, (500 * i) / held.length));
            for (let round = 0; round < LOAD_ROUNDS; round++) {
              const t = performance.now();
              const r = await call(
                'POST',
                `/v2/browser/${id}/execute`,
                { code: 'await page.title()', language: 'node' },
                key,
              );
              times.push(performance.now() - t);
              if (r.status !== 200 || r.body.exitCode !== 0) {
                if (failures++ === 0)
                  out(`  first failure: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
              }
              await new Promise((res) => setTimeout(res, 500));
            }
          }),
        );
        out(
          `${level} sessions at once, each one execute every 500 ms: execute ${fmt(times)}` +
            `${failures ? `, ${failures} failed` : ''}; ${load()}`,
        );
      }
    } finally {
      for (const id of held) await call('DELETE', `/v2/browser/${id}`, undefined, key);
    }
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
