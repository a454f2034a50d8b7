'use strict';
// User patterns (crawl includePaths/excludePaths): the linear-time engine (re2js, RE2's algorithm)
// against JavaScript's backtracking RegExp in the same process, on typical link paths, and both on
// a catastrophic pattern. Run after building: node tools/bench/user-regex.bench.js
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const { compileUserRegex } = require(path.join(ROOT, 'libs/contracts/dist'));

const PATTERNS = ['^/(p|w)/\\d+$', '^/$', '/private/', '\\.(zip|exe)$'];
const paths = Array.from({ length: 20_000 }, (_, i) =>
  i % 3 === 0 ? `/p/${i}` : i % 3 === 1 ? `/blog/2024/${i}/some-article-title-${i}` : `/w/${i}?ref=home`,
);

function run(name, compiled, rounds = 10) {
  let hits = 0;
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const p of paths) for (const re of compiled) if (re.test(p)) hits++;
  const ns = Number(process.hrtime.bigint() - t0) / (rounds * paths.length * compiled.length);
  process.stdout.write(`${name.padEnd(34)} ${ns.toFixed(0).padStart(6)} ns per test  (hits ${hits})\n`);
  return ns;
}

// Warm both up, then measure.
run('warm-up re2', PATTERNS.map(compileUserRegex), 1);
run('warm-up RegExp', PATTERNS.map((p) => new RegExp(p)), 1);
const re2 = run('re2js (linear time)', PATTERNS.map(compileUserRegex));
const js = run('RegExp (backtracking)', PATTERNS.map((p) => new RegExp(p)));
process.stdout.write(`re2js / RegExp: ${(re2 / js).toFixed(1)}x; per page with 50 links and 4 patterns: ` +
  `${((re2 - js) * 200 / 1000).toFixed(0)} µs more\n`);

for (const n of [20, 22, 24]) {
  const input = `/${'a'.repeat(n)}!`;
  const t0 = process.hrtime.bigint();
  new RegExp('(a+)+$').test(input);
  const jsMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const t1 = process.hrtime.bigint();
  compileUserRegex('(a+)+$').test(`/${'a'.repeat(8000)}!`);
  const reMs = Number(process.hrtime.bigint() - t1) / 1e6;
  process.stdout.write(`(a+)+$: RegExp on ${n} a's ${jsMs.toFixed(0)} ms; re2js on 8000 a's ${reMs.toFixed(1)} ms\n`);
}
