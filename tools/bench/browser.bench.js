'use strict';
// Browser rendering benchmark: the browser-pool's render path (pool + fresh context + policy proxy +
// ad blocker + smart wait + transformable DOM) against a local page, in one process.
// Run after building: npx tsc -b apps/browser-pool/tsconfig.build.json && node tools/bench/browser.bench.js
// Measures: warm-pool render p50/p95 without and with a viewport screenshot, PSS per extra concurrent
// context, and N concurrent renders on one replica (errors, throughput).
const http = require('node:http');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { randomUUID } = require('node:crypto');

const dist = (p) => require(`../../apps/browser-pool/dist/${p}`);
const { BrowserPool } = dist('pool/browser-pool');
const { ChromiumLauncher } = dist('pool/browser-launcher');
const { LinuxProcessTable } = dist('pool/process-memory');
const { JobContextFactory } = dist('render/job-context');
const { PageRenderer } = dist('render/page-renderer');
const { PolicyProxy } = dist('render/policy-proxy');
const { AdBlocker, BUNDLED_FILTER_LIST } = dist('render/ad-blocker');
const { RenderPageUseCase } = dist('render/render-page.usecase');
const { InlineArtifacts } = dist('artifacts/artifact-store');
const { contextSpecFor } = dist('render/context-options');
const { NetworkPolicy } = require('@wds/outbound');
const { createLogger } = require('@wds/observability');
const { BrowserRenderRequest } = require('@wds/contracts');

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
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

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function build(browsers, capacity, allow) {
  const logger = createLogger({ service: 'bench', level: 'error' });
  const policy = new NetworkPolicy({ allowlist: [allow] });
  const proxy = new PolicyProxy(policy, logger);
  await proxy.start();
  const processes = new LinuxProcessTable();
  const blocker = AdBlocker.fromFiles([BUNDLED_FILTER_LIST]);
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
    new ChromiumLauncher(process.env.WDS_CHROMIUM_PATH || '/usr/bin/chromium', processes, () => proxy.url),
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
    new PageRenderer({ quietMs: 100, capMs: 2000 }, blocker.noticeSelectors),
    new InlineArtifacts(),
    memoryStores.profiles,
    memoryStores.replay,
    { replayRetentionMs: 3600_000 },
    logger,
  );
  return { pool, proxy, useCase, processes };
}

const request = (url, extra = {}) =>
  BrowserRenderRequest.parse({ teamId: 'bench', jobId: randomUUID(), url, timeoutMs: 30_000, ...extra });

async function timed(useCase, url, extra, runs, warmup) {
  for (let i = 0; i < warmup; i++) await useCase.execute(request(url, extra));
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await useCase.execute(request(url, extra));
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

async function main() {
  const site = await startSite();
  const port = site.address().port;
  const url = `http://127.0.0.1:${port}/article`;
  out(`# browser bench: ${os.cpus().length} cores, ${os.cpus()[0].model}, Node ${process.version}`);
  out(
    `page: ${Buffer.byteLength(pageHtml())} bytes + css/js/png; runs=${RUNS} warmup=${WARMUP}; ` +
      `spare context ${process.env.BENCH_SPARE === '0' ? 'off' : 'on'}; load average ${os.loadavg()[0].toFixed(1)}`,
  );

  // 1. Latency with a warm pool (one browser, sequential).
  let env = await build(1, CONCURRENCY, `127.0.0.1:${port}`);
  const plain = await timed(env.useCase, url, {}, RUNS, WARMUP);
  out(`render (rendered HTML):           p50 ${plain.p50.toFixed(0)} ms  p95 ${plain.p95.toFixed(0)} ms`);
  const shot = await timed(env.useCase, url, { screenshot: { fullPage: false } }, RUNS, 2);
  out(
    `render + viewport screenshot:     p50 ${shot.p50.toFixed(0)} ms  p95 ${shot.p95.toFixed(0)} ms  (1920x1080 PNG)`,
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
