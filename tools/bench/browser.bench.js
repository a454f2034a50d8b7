'use strict';
// Browser rendering benchmark: the browser-pool's render path (pool + fresh context + policy proxy +
// ad blocker + consent handling + smart wait + rendered DOM) against a local page, in one process.
// Run after building: npx tsc -b apps/browser-pool/tsconfig.build.json && node tools/bench/browser.bench.js
// Measures: warm-pool render p50/p95 without and with a viewport screenshot (and the CPU time each render
// costs: this process + the Chromium process tree), PSS per extra concurrent context, and N concurrent
// renders on one replica (errors, throughput).
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { randomUUID } = require('node:crypto');

const dist = (p) => require(`../../apps/browser-pool/dist/${p}`);
const { BrowserPool } = dist('pool/browser-pool');
const { ChromiumLauncher, defaultChromiumPath } = dist('pool/browser-launcher');
const { LinuxProcessTable } = dist('pool/process-memory');
const { JobContextFactory } = dist('render/job-context');
const { PageRenderer } = dist('render/page-renderer');
const { PolicyProxy } = dist('render/policy-proxy');
const { AdBlocker, filterListsFor } = dist('render/ad-blocker');
const { ConsentHandler } = dist('render/consent');
const { cachingResolver } = dist('render/dns-cache');
const { RenderPageUseCase } = dist('render/render-page.usecase');
const { InlineArtifacts } = dist('artifacts/artifact-store');
const { contextSpecFor } = dist('render/context-options');
const { NetworkPolicy } = require('@wds/outbound');
const { createLogger } = require('@wds/observability');
const { BrowserRenderRequest } = require('@wds/contracts');

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const QUIET_MS = Number(process.env.WDS_BROWSER_IDLE_MS ?? 50);
const out = (s) => process.stdout.write(`${s}\n`);

/** A ~55 KB article page with a stylesheet, an image and a script, like a typical content page. */
function pageHtml() {
  const paras = Array.from(
    { length: 120 },
    (_, i) =>
      `<p>Paragraph ${i}: ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6)}</p>`,
  ).join('\n');
  return `<!doctype html><html><head><title>Bench</title><link rel="stylesheet" href="/style.css"></head>
<body><header><nav><a href="/a">A</a> <a href="/b">B</a></nav></header><main><article><h1>Benchmark article</h1>
<img src="/pixel.png" alt="x">${paras}</article></main><script src="/app.js"></script></body></html>`;
}

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

function startSite() {
  const html = pageHtml();
  const server = http.createServer((req, res) => {
    const p = req.url.split('?')[0];
    if (p === '/style.css')
      return res.writeHead(200, { 'content-type': 'text/css' }).end('body{font:16px sans-serif}');
    if (p === '/app.js')
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end('document.body.dataset.ok=1');
    if (p === '/pixel.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const memoryStores = {
  profiles: { withProfile: async (_t, _n, _s, job) => (await job(undefined)).result },
  replay: { save: async () => undefined, find: async () => undefined, purgeExpired: async () => 0 },
};

const CHROMIUM = process.env.WDS_CHROMIUM_PATH || defaultChromiumPath();
const TICKS = 100; // USER_HZ on Linux

/** CPU ms of a process tree: own time + reaped children's time (closed renderers are counted by their parent). */
function treeCpuMs(pid) {
  let ticks = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift();
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      for (const t of fs.readdirSync(`/proc/${p}/task`)) {
        const kids = fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
        if (kids) queue.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1000) / TICKS;
}

function cpuNow(pool) {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + pool.browserPids().reduce((s, pid) => s + treeCpuMs(pid), 0);
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function build(browsers, capacity, allow) {
  const logger = createLogger({ service: 'bench', level: 'error' });
  const policy = new NetworkPolicy({ allowlist: [allow], resolve: cachingResolver() });
  const proxy = new PolicyProxy(policy, logger);
  await proxy.start();
  const processes = new LinuxProcessTable();
  const lists = filterListsFor(undefined);
  const blocker = AdBlocker.fromFiles(lists.lists);
  const spare = contextSpecFor({ mobile: false, skipTlsVerification: true, location: { country: 'US' } });
  const pool = new BrowserPool(
    {
      instanceId: 'bench',
      browsers,
      capacity,
      recycleAfterJobs: 10_000,
      recycleAboveBytes: 8 * 1024 ** 3,
      launchStaggerMs: 200,
    },
    new ChromiumLauncher(CHROMIUM, processes, () => proxy.url),
    new JobContextFactory(policy, blocker),
    processes,
    logger,
    process.env.BENCH_SPARE === '0' ? undefined : { key: spare.key, options: spare.options },
  );
  await pool.start();
  // Let every browser of the pool finish launching before measuring.
  while (pool.stats().browsers < browsers) await new Promise((r) => setTimeout(r, 50));
  const useCase = new RenderPageUseCase(
    pool,
    new PageRenderer(
      { quietMs: QUIET_MS, capMs: 2000 },
      policy,
      blocker.noticeSelectors,
      process.env.BENCH_CONSENT === '0' ? undefined : ConsentHandler.load(),
    ),
    new InlineArtifacts(),
    memoryStores.profiles,
    memoryStores.replay,
    proxy,
    { replayRetentionMs: 3600_000 },
    logger,
  );
  return { pool, proxy, useCase, processes, lists };
}

const request = (url, extra = {}) =>
  BrowserRenderRequest.parse({ teamId: 'bench', jobId: randomUUID(), url, timeoutMs: 30_000, ...extra });

async function timed(env, url, extra, runs, warmup) {
  for (let i = 0; i < warmup; i++) await env.useCase.execute(request(url, extra));
  const ms = [];
  const cpu0 = cpuNow(env.pool);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await env.useCase.execute(request(url, extra));
    ms.push(performance.now() - t0);
  }
  const cpu = (cpuNow(env.pool) - cpu0) / runs;
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), cpu };
}

async function main() {
  const site = await startSite();
  const port = site.address().port;
  const url = `http://127.0.0.1:${port}/article`;
  out(`# browser bench: ${os.cpus().length} cores, ${os.cpus()[0].model}, Node ${process.version}`);
  out(
    `page: ${Buffer.byteLength(pageHtml())} bytes + css/js/png; runs=${RUNS} warmup=${WARMUP}; ` +
      `spare context ${process.env.BENCH_SPARE === '0' ? 'off' : 'on'}; quiet window ${QUIET_MS} ms; ` +
      `consent ${process.env.BENCH_CONSENT === '0' ? 'off' : 'on'}; load average ${os.loadavg()[0].toFixed(1)}`,
  );
  out(`chromium: ${CHROMIUM}`);

  // 1. Latency with a warm pool (one browser, sequential).
  let env = await build(1, CONCURRENCY, `127.0.0.1:${port}`);
  out(`filter lists: ${env.lists.lists.join(', ')}`);
  const plain = await timed(env, url, {}, RUNS, WARMUP);
  out(
    `render (rendered HTML):           p50 ${plain.p50.toFixed(0)} ms  p95 ${plain.p95.toFixed(0)} ms  ` +
      `CPU ${plain.cpu.toFixed(0)} ms/render`,
  );
  const shot = await timed(env, url, { screenshot: { fullPage: false } }, RUNS, 2);
  out(
    `render + viewport screenshot:     p50 ${shot.p50.toFixed(0)} ms  p95 ${shot.p95.toFixed(0)} ms  ` +
      `CPU ${shot.cpu.toFixed(0)} ms/render  (1920x1080 PNG)`,
  );

  // 2. Memory per extra concurrent context: hold K contexts open (a wait action), measure the browser's PSS.
  const [pid] = env.pool.browserPids();
  await new Promise((r) => setTimeout(r, 1500));
  const idle = await env.processes.treePssBytes(pid);
  const held = Array.from({ length: CONCURRENCY }, () =>
    env.useCase.execute(request(url, { actions: [{ type: 'wait', milliseconds: 6000 }] })),
  );
  await new Promise((r) => setTimeout(r, 4500));
  const busy = await env.processes.treePssBytes(pid);
  await Promise.all(held);
  const perContext = (busy - idle) / CONCURRENCY / 1024 / 1024;
  out(
    `memory: browser idle (+1 spare context) ${(idle / 1024 / 1024).toFixed(0)} MB PSS; with ${CONCURRENCY} ` +
      `contexts open ${(busy / 1024 / 1024).toFixed(0)} MB; per extra context ${perContext.toFixed(1)} MB`,
  );
  await env.pool.drain(5000);
  await env.proxy.close();

  // 3. Concurrency on one replica with the default shape (2 browsers, capacity CONCURRENCY).
  env = await build(2, CONCURRENCY, `127.0.0.1:${port}`);
  let errors = 0;
  const rounds = 4;
  const t0 = performance.now();
  const lat = [];
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const s = performance.now();
        try {
          const reply = await env.useCase.execute(request(url));
          if (!reply.content.html.includes('Benchmark article')) errors++;
        } catch (err) {
          errors++;
          out(`error: ${err.message}`);
        }
        lat.push(performance.now() - s);
      }),
    );
  }
  const total = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  out(
    `concurrency ${CONCURRENCY} x ${rounds} rounds, 2 browsers: ${rounds * CONCURRENCY} renders, ${errors} errors, ` +
      `${((rounds * CONCURRENCY) / total).toFixed(1)} pages/s, latency p50 ${percentile(lat, 50).toFixed(0)} ms ` +
      `p95 ${percentile(lat, 95).toFixed(0)} ms`,
  );
  await env.pool.drain(5000);
  await env.proxy.close();
  site.close();
  out(`load average at the end: ${os.loadavg()[0].toFixed(1)}`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
