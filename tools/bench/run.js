#!/usr/bin/env node
'use strict';
// `npm run bench [-- name ...]`: builds the workspace, then runs every tools/bench/*.bench.js in
// sequence, or only the named ones (`npm run bench -- transform` runs transform.bench.js).
// Exits with the first failing benchmark's code; each benchmark's own env knobs pass through.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const say = (s) => process.stdout.write(`${s}\n`);

const available = fs
  .readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.slice(0, -'.bench.js'.length))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}\n`);
  process.exit(2);
}

if (process.env.BENCH_SKIP_BUILD !== '1') {
  say('> npx tsc -b tsconfig.build.json');
  const build = spawnSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

let code = 0;
for (const name of wanted.length ? wanted : available) {
  say(`\n> node tools/bench/${name}.bench.js`);
  const run = spawnSync(process.execPath, [path.join(__dirname, `${name}.bench.js`)], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const status = run.status ?? 1;
  if (status !== 0 && code === 0) code = status;
}
process.exit(code);
