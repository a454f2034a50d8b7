#!/usr/bin/env node
'use strict';
// Runs tools/bench/crawl.bench.js several times (each on a fresh stack, without the frontier phase)
// and prints one line per run plus the spread: on a shared VM a single crawl figure says little.
// Run after building: node tools/bench/crawl-runs.js [runs=5]. The crawl bench's env knobs pass
// through (BENCH_PAGES, BENCH_CONCURRENCY, BENCH_SERVICE_NODE_ARGS, ...).
const { spawnSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');

const runs = Number(process.argv[2] ?? 5);
const say = (s) => process.stdout.write(`${s}\n`);
const results = [];

for (let i = 1; i <= runs; i++) {
  const load = os.loadavg()[0].toFixed(1);
  const r = spawnSync(process.execPath, [path.join(__dirname, 'crawl.bench.js')], {
    env: { ...process.env, BENCH_FRONTIER: '0' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    process.stderr.write(`run ${i} failed (exit ${r.status}):\n${r.stderr.slice(-4000)}\n`);
    process.exit(1);
  }
  // The result is the first JSON object the bench prints (statement stats may follow, one per line).
  const json = r.stdout.slice(r.stdout.indexOf('{'), r.stdout.indexOf('\n}') + 2);
  const res = JSON.parse(json);
  results.push(res);
  const c = res.cpuMsPerPage;
  say(
    `run ${i}: ${res.pages} pages ${res.status}, ${res.pagesPerSecondOverall} pages/s overall, ` +
      `${res.pagesPerSecondSteady} steady, CPU ms/page ${c.total} (crawler ${c.crawler}, scraper ${c.scraper}, ` +
      `postgres ${c.postgres}, billing ${c.billing}, nats ${c.nats}, bench+site ${c.benchAndSite}), load ${load}` +
      `, integrity ${res.integrity?.ok ? 'ok' : JSON.stringify(res.integrity)}`,
  );
}

const spread = (pick) => {
  const v = results.map(pick).sort((a, b) => a - b);
  const mid = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  return `${v[0]}–${v.at(-1)} (median ${+mid.toFixed(2)})`;
};
say(`pages/s overall: ${spread((r) => r.pagesPerSecondOverall)}`);
say(`pages/s steady:  ${spread((r) => r.pagesPerSecondSteady)}`);
say(`CPU ms/page:     ${spread((r) => r.cpuMsPerPage.total)}`);
