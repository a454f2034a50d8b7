'use strict';
// Crawl benchmark: the real billing, scraper and crawler processes (built output) on a private
// NATS + PostgreSQL crawl a generated local site end to end (fetch engine, transform, document
// storage, link de-duplication in the frontier, scheduling, credits). Reports pages/s and the
// RSS of the crawler and scraper sampled every second; then holds a 50,000-URL frontier.
// Run after building: npx tsc -b tsconfig.build.json && node tools/bench/crawl.bench.js
// Reports CPU per page of every process (services, this bench's PostgreSQL and nats-server, the bench
// with its site) and the load average. Env: BENCH_PAGES (5000), BENCH_FRONTIER (50000; 0 skips the
// frontier check), BENCH_CONCURRENCY, BENCH_PAGE_BYTES, BENCH_SERVICE_NODE_ARGS (e.g. --cpu-prof),
// BENCH_NODE_OPTIONS (the services' NODE_OPTIONS, default none),
// BENCH_PG_DURABLE=1, BENCH_PG_STATS=1 (pg_stat_statements: statements per page with run and planning
// time), BENCH_PG_EXPLAIN=<duration> with BENCH_PG_LOG=<file> (auto_explain plans of slower statements,
// with BENCH_PG_STATS=1), BENCH_PG_SQL (statements run after the services migrated, for experiments),
// BENCH_PATTERNS=1 (includePaths/excludePaths on the crawl: the cost of user patterns).
const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const { startNats, startPostgres } = require(path.join(ROOT, 'libs/local-infra/dist'));
const { Messaging } = require(path.join(ROOT, 'libs/messaging/dist'));
const { createLogger } = require(path.join(ROOT, 'libs/observability/dist'));
const { CRAWL_RPC, CrawlRequest, RPC } = require(path.join(ROOT, 'libs/contracts/dist'));

const PAGES = Number(process.env.BENCH_PAGES ?? 5000);
const FRONTIER = Number(process.env.BENCH_FRONTIER ?? 50000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const PAGE_BYTES = Number(process.env.BENCH_PAGE_BYTES ?? 4000);
// BENCH_PATTERNS=1: the crawl carries includePaths/excludePaths (matched by the linear-time RE2
// engine on every discovered link), to measure what user patterns cost against a run without.
const PATTERNS =
  process.env.BENCH_PATTERNS === '1'
    ? { includePaths: ['^/(p|w)/\\d+$', '^/$'], excludePaths: ['/private/', '\\.(zip|exe)$'] }
    : {};

/** /p/i links to its children 2i+1, 2i+2 (a binary tree) and home; /wide links to FRONTIER pages. */
function startSite() {
  const filler = `<p>${'Streaming systems trade latency for throughput. '.repeat(Math.ceil(PAGE_BYTES / 49))}</p>`;
  let wide;
  const server = http.createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    if (p === '/wide') {
      wide ??= Array.from({ length: FRONTIER }, (_, i) => `<a href="/w/${i}">w${i}</a>`).join('\n');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body><main><h1>Wide</h1>${wide}</main></body></html>`);
      return;
    }
    const m = /^\/p\/(\d+)$/.exec(p);
    const i = p === '/' ? 0 : m ? Number(m[1]) : p.startsWith('/w/') ? 0 : -1;
    if (i < 0 || i >= PAGES) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nf');
      return;
    }
    const links = [2 * i + 1, 2 * i + 2].filter((c) => c < PAGES).map((c) => `<a href="/p/${c}">p${c}</a>`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Page ${i}</title></head><body><header><nav><a href="/">Home</a></nav></header>` +
        `<main><article><h1>Page ${i}</h1>${filler}<ul><li>${links.join('</li><li>')}</li></ul></article></main></body></html>`,
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

/** CPU seconds of this bench's PostgreSQL: the postmaster and its children (backends, WAL writer, ...). */
function postgresCpuSeconds(postmasterPid) {
  let sum = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
      if (Number(pid) === postmasterPid || ppid === postmasterPid) sum += cpuSeconds(Number(pid));
    } catch {
      // process gone
    }
  }
  return sum;
}

function spawnService(name, env) {
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, `apps/${name}/dist/main.js`)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env, WDS_INSTANCE_ID: `${name}-bench` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-20000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-20000)));
  child.tail = () => out.split('\n').slice(-6).join('\n');
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('"healthUrl"')) {
        clearInterval(t);
        resolve(child);
      } else if (child.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`${name} exited:\n${out}`));
      }
    }, 50);
  });
}

/** BENCH_PG_STATS=1: restarts the cluster with pg_stat_statements and prints the top statements. */
const STATEMENT_STATS = process.env.BENCH_PG_STATS === '1';

async function withStatementStats(pg, opts) {
  await pg.stop();
  // track 'all': the statements inside finish_page() are listed too (their time is also in its call's).
  fs.appendFileSync(
    path.join(opts.dataDir, 'postgresql.conf'),
    `\nshared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = 'all'\npg_stat_statements.track_planning = on\n` +
      (process.env.BENCH_PG_EXPLAIN
        ? `session_preload_libraries = 'auto_explain'\nauto_explain.log_min_duration = '${process.env.BENCH_PG_EXPLAIN}'\nauto_explain.log_nested_statements = on\n`
        : ''),
  );
  const restarted = await startPostgres({ ...opts, port: pg.port });
  await pgQuery(restarted.url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return restarted;
}

async function pgQuery(url, sql, params = []) {
  const { Database } = require(path.join(ROOT, 'libs/database/dist'));
  const db = new Database({ url });
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.close();
  }
}

async function statementStats(url, pages) {
  const rows = await pgQuery(
    url,
    `SELECT calls, round(total_exec_time::numeric, 1) AS ms, round(total_plan_time::numeric, 1) AS plan_ms, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
     FROM pg_stat_statements WHERE calls > 0 ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`,
  );
  return rows.map((r) => ({
    perPage: +(Number(r.calls) / pages).toFixed(2),
    msPerPage: +(Number(r.ms) / pages).toFixed(3),
    planMsPerPage: +(Number(r.plan_ms) / pages).toFixed(3),
    rows: Number(r.rows),
    query: r.query,
  }));
}

/**
 * Polls the crawl's status until it ends: every 100 ms, so the end is seen within 100 ms (at 1 s,
 * up to 5% of a 20 s run was polling delay); `onTick` gets one status a second.
 */
async function waitFor(client, teamId, id, onTick) {
  let lastTick = 0;
  for (;;) {
    const s = await client.request(CRAWL_RPC.status, { teamId, jobId: id, skip: 0, limit: 1, maxBytes: 1 });
    const ended = s.status !== 'scraping';
    if (ended || Date.now() - lastTick >= 1000) {
      lastTick = Date.now();
      onTick?.(s);
    }
    if (ended) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-crawl-bench-'));
  const nats = await startNats({ dataDir: path.join(dir, 'nats') });
  // BENCH_PG_DURABLE=1: crash-safe PostgreSQL settings, as npm start runs it.
  const pgOpts = { dataDir: path.join(dir, 'pg'), durable: process.env.BENCH_PG_DURABLE === '1' };
  let pg = await startPostgres(pgOpts);
  if (STATEMENT_STATS) pg = await withStatementStats(pg, pgOpts);
  const site = await startSite();
  const port = site.address().port;
  const env = {
    NATS_URL: nats.url,
    DATABASE_URL: pg.url,
    HEALTH_PORT: '0',
    LOG_LEVEL: 'info',
    WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${port}`,
    // The services run as deployed (no tuning flags); BENCH_NODE_OPTIONS passes some for experiments
    // (before session 5 this was --max-semi-space-size=32: ~3% less CPU per page, not worth the memory).
    NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? '',
  };
  const children = [];
  const stop = async () => {
    // Callers first (crawler, scraper, then billing), so each reports its usage to a running billing.
    for (const c of [...children].reverse()) {
      c.kill('SIGTERM');
      // Up to 10 s for a clean exit (a --cpu-prof profile is written then).
      for (let i = 0; i < 100 && c.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
      if (c.exitCode !== null) continue;
      console.error(`${c.spawnargs.at(-1)} did not stop within 10 s: killed; its last lines:\n${c.tail()}`);
      c.kill('SIGKILL');
    }
    await client?.drain();
    site.close();
    await nats.stop();
    await pg.stop();
    // BENCH_PG_EXPLAIN=<duration> (with BENCH_PG_STATS=1): auto_explain's plans are kept in BENCH_PG_LOG.
    if (process.env.BENCH_PG_LOG)
      fs.copyFileSync(path.join(dir, 'pg', 'postgres.log'), process.env.BENCH_PG_LOG);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  let client;
  try {
    children.push(await spawnService('billing', env));
    const scraper = await spawnService('scraper', env);
    children.push(scraper);
    const crawler = await spawnService('crawler', {
      ...env,
      WDS_CRAWL_WORKER_CONCURRENCY: String(CONCURRENCY),
    });
    children.push(crawler);
    // BENCH_PG_SQL: statements run once the services have migrated (experiments, e.g. a function setting).
    if (process.env.BENCH_PG_SQL) await pgQuery(pg.url, process.env.BENCH_PG_SQL);
    client = await Messaging.connect({
      servers: nats.url,
      name: 'bench',
      logger: createLogger({ service: 'bench', level: 'fatal' }),
    });
    const teamId = `bench-${randomUUID()}`;
    await client.request(RPC.creditsGrant, {
      teamId,
      amount: 10_000_000,
      reason: 'bench',
      idempotencyKey: teamId,
    });
    const create = (request, concurrency) =>
      client.request(CRAWL_RPC.create, {
        crawlId: randomUUID(),
        teamId,
        request: CrawlRequest.parse(request),
        teamConcurrency: concurrency,
      });

    const samples = [];
    const cpu0 = Object.fromEntries(
      children.map((c, i) => [['billing', 'scraper', 'crawler'][i], cpuSeconds(c.pid)]),
    );
    const pg0 = postgresCpuSeconds(pg.pid);
    const nats0 = cpuSeconds(nats.pid);
    const load0 = os.loadavg().map((l) => +l.toFixed(2));
    const t0 = Date.now();
    const { id } = await create(
      {
        url: `http://127.0.0.1:${port}/`,
        sitemap: 'skip',
        limit: PAGES,
        scrapeOptions: { maxAge: 0, proxy: 'basic' },
        ...PATTERNS,
      },
      CONCURRENCY,
    );
    const final = await waitFor(client, teamId, id, (s) =>
      samples.push({
        t: (Date.now() - t0) / 1000,
        done: s.completed,
        crawler: rssMb(crawler.pid),
        scraper: rssMb(scraper.pid),
      }),
    );
    const secs = (Date.now() - t0) / 1000;
    const cpu = Object.fromEntries(
      children.map((c, i) => {
        const name = ['billing', 'scraper', 'crawler'][i];
        return [name, +(cpuSeconds(c.pid) - cpu0[name]).toFixed(1)];
      }),
    );
    cpu.postgres = +(postgresCpuSeconds(pg.pid) - pg0).toFixed(1);
    cpu.nats = +(cpuSeconds(nats.pid) - nats0).toFixed(1);
    cpu.benchAndSite = +(process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6).toFixed(1);
    const steady = samples.filter((s) => s.done > PAGES * 0.1 && s.done < PAGES * 0.9);
    const rate =
      steady.length > 1
        ? (steady.at(-1).done - steady[0].done) / (steady.at(-1).t - steady[0].t)
        : final.completed / secs;
    const quart = (k) => samples[Math.min(samples.length - 1, Math.floor((samples.length * k) / 4))];
    // Every page stored once with a gap-free completion sequence, and charged once (a check of
    // correctness under load, not a timing).
    const [pagesRow] = await pgQuery(
      pg.url,
      `SELECT count(*) FILTER (WHERE status = 'done')::int AS done,
         count(DISTINCT done_seq)::int AS seqs, coalesce(max(done_seq), 0)::int AS "maxSeq",
         count(*) FILTER (WHERE status NOT IN ('done', 'failed'))::int AS unfinished
       FROM crawler.job_pages WHERE job_id = $1`,
      [id],
    );
    const [usageRow] = await pgQuery(
      pg.url,
      `SELECT count(*)::int AS entries, coalesce(sum(amount), 0)::int AS credits
       FROM billing.usage WHERE team_id = $1 AND endpoint = 'crawl'`,
      [teamId],
    );
    const integrity = { ...pagesRow, usageEntries: usageRow.entries, creditsCharged: usageRow.credits };
    integrity.ok =
      integrity.done === final.completed &&
      integrity.seqs === integrity.done &&
      integrity.maxSeq === integrity.done &&
      integrity.unfinished === 0 &&
      integrity.usageEntries === integrity.done &&
      integrity.creditsCharged === integrity.done;
    const result = {
      machine: `${os.cpus().length} cores, ${os.cpus()[0].model}, Node ${process.version}`,
      pages: final.completed,
      status: final.status,
      seconds: secs,
      pagesPerSecondOverall: +(final.completed / secs).toFixed(1),
      pagesPerSecondSteady: +rate.toFixed(1),
      cpuSeconds: cpu,
      // The robust figure on a shared machine: CPU per page, per process and in all.
      cpuMsPerPage: Object.fromEntries(
        [...Object.entries(cpu), ['total', Object.values(cpu).reduce((a, b) => a + b, 0)]].map(([k, v]) => [
          k,
          +((v * 1000) / Math.max(1, final.completed)).toFixed(2),
        ]),
      ),
      loadAverage: { before: load0, after: os.loadavg().map((l) => +l.toFixed(2)) },
      integrity,
      rssMb: [1, 2, 3, 4].map((k) => ({
        at: quart(k - 1).done,
        crawler: Math.round(quart(k - 1).crawler),
        scraper: Math.round(quart(k - 1).scraper),
      })),
    };
    console.log(JSON.stringify(result, null, 2));
    if (STATEMENT_STATS) {
      for (const r of await statementStats(pg.url, final.completed)) console.log(JSON.stringify(r));
      await pgQuery(pg.url, 'SELECT pg_stat_statements_reset()');
    }

    // Frontier: one page links FRONTIER URLs; hold them at concurrency 1 for a few seconds.
    if (FRONTIER === 0) return;
    const f0 = Date.now();
    const wide = await create(
      {
        url: `http://127.0.0.1:${port}/wide`,
        sitemap: 'skip',
        crawlEntireDomain: true,
        limit: FRONTIER + 1,
        scrapeOptions: { maxAge: 0, proxy: 'basic' },
      },
      1,
    );
    let held;
    for (;;) {
      const s = await client.request(CRAWL_RPC.status, {
        teamId,
        jobId: wide.id,
        skip: 0,
        limit: 1,
        maxBytes: 1,
      });
      if (s.total >= FRONTIER) {
        held = { total: s.total, secondsToDiscover: (Date.now() - f0) / 1000 };
        break;
      }
      if (Date.now() - f0 > 120_000) throw new Error(`frontier not filled: ${s.total}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 5000));
    const later = await client.request(CRAWL_RPC.status, {
      teamId,
      jobId: wide.id,
      skip: 0,
      limit: 1,
      maxBytes: 1,
    });
    const { rows } = await (async () => {
      const { Database } = require(path.join(ROOT, 'libs/database/dist'));
      const db = new Database({ url: pg.url });
      try {
        return await db.query(
          `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, pg_size_pretty(pg_total_relation_size('crawler.job_pages')) AS size FROM crawler.job_pages WHERE job_id = $1`,
          [wide.id],
        );
      } finally {
        await db.close();
      }
    })();
    await client.request(CRAWL_RPC.cancel, { teamId, jobId: wide.id });
    console.log(
      JSON.stringify(
        {
          frontier: {
            ...held,
            queuedAfter5s: rows[0].queued,
            completedAfter5s: later.completed,
            tableSize: rows[0].size,
            crawlerRssMb: Math.round(rssMb(crawler.pid)),
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
