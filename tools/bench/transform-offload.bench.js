'use strict';
// Large pages off the event loop: how long small pages wait while large ones are transformed, with
// the scraper's HtmlTransformer on the event loop (threads 0, the old behaviour) and with large pages
// in worker threads (apps/scraper PooledHtmlTransformer, the default). Both in this process, one
// after the other, same workload: one team keeps a large page (the corpus's 2 MB article) in
// transformation at all times while small pages (a 62 KB article) arrive every BENCH_OFFLOAD_GAP_MS
// (default 20); a small page's latency is from its arrival to its document (waiting for the event
// loop included; they arrive on a fixed schedule). Also the event loop's delay (perf_hooks.monitorEventLoopDelay) and large pages/s.
// Run after building: npx tsc -b tsconfig.build.json && node tools/bench/transform-offload.bench.js
// Env: BENCH_OFFLOAD_SECONDS (per mode, default 6), BENCH_OFFLOAD_GAP_MS, BENCH_OFFLOAD_THREADS
// (worker threads of the pooled mode; default 1, the scraper's WDS_SCRAPE_TRANSFORM_THREADS).
const os = require('node:os');
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const { generateCorpus } = require('./corpus');
const { PooledHtmlTransformer } = require('../../apps/scraper/dist/scrape/document/pooled.html-transformer');
const { PageWorkers } = require('../../apps/scraper/dist/scrape/document/page-workers');

const SECONDS = Number(process.env.BENCH_OFFLOAD_SECONDS ?? 6);
const GAP_MS = Number(process.env.BENCH_OFFLOAD_GAP_MS ?? 20);
const THREADS = Number(process.env.BENCH_OFFLOAD_THREADS ?? 1);
const INLINE_MAX_CHARS = 256 * 1024;

const corpus = generateCorpus();
const large = corpus.find((p) => p.name === 'long-page-2mb');
const small = corpus.find((p) => p.name === 'blog-article-small');
const opts = (p) => ({
  url: p.url,
  formats: new Set(['markdown', 'links']),
  onlyMainContent: true,
  removeBase64Images: true,
});

function pct(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

async function run(label, threads) {
  const workers =
    threads > 0 ? new PageWorkers({ threads, inlineMaxChars: INLINE_MAX_CHARS, maxHeapMb: 512 }) : undefined;
  const t = new PooledHtmlTransformer(workers);
  // Warm-up: JIT on the event loop and in the worker thread(s).
  for (let i = 0; i < 3; i++)
    await Promise.all([t.transform(large.html, opts(large)), t.transform(small.html, opts(small))]);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  const latencies = [];
  let largeDone = 0;
  let stop = false;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  delay.enable();
  const largeLoop = (async () => {
    while (!stop) {
      await t.transform(large.html, opts(large));
      largeDone++;
      // The next large page arrives as a request would: through the event loop.
      await new Promise((r) => setImmediate(r));
    }
  })();
  const smallOnes = [];
  // Small pages arrive on a fixed schedule, as requests from the network do: one that is due while
  // the event loop is held waits, and its latency counts from when it was due.
  await new Promise((resolve) => {
    let due = t0 + GAP_MS;
    const tick = () => {
      const now = performance.now();
      while (due <= now && due - t0 <= SECONDS * 1000) {
        const arrived = due;
        due += GAP_MS;
        smallOnes.push(
          t.transform(small.html, opts(small)).then(() => latencies.push(performance.now() - arrived)),
        );
      }
      if (due - t0 > SECONDS * 1000) resolve();
      else setTimeout(tick, Math.max(0, due - now));
    };
    setTimeout(tick, GAP_MS);
  });
  stop = true;
  await Promise.all([largeLoop, ...smallOnes]);
  delay.disable();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await workers?.onModuleDestroy();
  latencies.sort((a, b) => a - b);
  return {
    label,
    small: latencies.length,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    max: latencies[latencies.length - 1],
    loopP99: delay.percentile(99) / 1e6,
    loopMax: delay.max / 1e6,
    largePerSecond: largeDone / seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

(async () => {
  const out = (s) => process.stdout.write(`${s}\n`);
  out(
    `node ${process.version}, ${os.cpus()[0].model}, ${os.cpus().length} cores; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  out(
    `large page ${(Buffer.byteLength(large.html) / 1048576).toFixed(2)} MB always in transformation; a ${(Buffer.byteLength(small.html) / 1024).toFixed(0)} KB page every ${GAP_MS} ms; ${SECONDS} s per mode; pages above ${INLINE_MAX_CHARS / 1024} KiB to ${THREADS} worker thread(s) in the pooled mode`,
  );
  const rows = [
    await run('event loop only (threads 0)', 0),
    await run(`large pages in ${THREADS} worker thread(s)`, THREADS),
  ];
  out('');
  out(
    '| mode | small pages | small p50 ms | small p99 ms | small max ms | event-loop delay p99 ms | max ms | large pages/s | CPU s |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    out(
      `| ${r.label} | ${r.small} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} | ${r.loopP99.toFixed(1)} | ${r.loopMax.toFixed(1)} | ${r.largePerSecond.toFixed(1)} | ${r.cpuSeconds.toFixed(1)} |`,
    );
  }
  out(
    `load average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
})().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
