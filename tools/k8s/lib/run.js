'use strict';
// Process helpers and a tiny reporter for the chart checks (`npm run test:k8s`).
const { spawn, spawnSync } = require('node:child_process');

function log(msg) {
  process.stderr.write(`[test:k8s ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Runs a command to completion; never throws. Returns { code, stdout, stderr }. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...opts,
  });
  if (r.error) return { code: -1, stdout: '', stderr: String(r.error.message) };
  return { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Same as run, without blocking the event loop (so a watcher can act meanwhile). */
function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (err) => resolve({ code: -1, stdout, stderr: stderr + err.message }));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Fails with the command's output when it did not exit 0; returns stdout. */
function must(r, what) {
  if (r.code !== 0)
    throw new Error(`${what} exited ${r.code}:\n${(r.stderr || r.stdout).trim().slice(-3000)}`);
  return r.stdout;
}

class Reporter {
  constructor() {
    this.passed = 0;
    this.failed = 0;
    this.failures = [];
  }

  /** Runs one check; a thrown error fails it, with the message shown. */
  async check(name, fn) {
    const t0 = Date.now();
    try {
      await fn();
      this.passed++;
      process.stdout.write(`  ✓ ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    } catch (err) {
      this.failed++;
      this.failures.push(name);
      process.stdout.write(`  ✗ ${name}\n${indent(err.message)}\n`);
    }
  }

  summary() {
    if (this.failures.length) {
      process.stdout.write('\nfailed:\n');
      for (const f of this.failures) process.stdout.write(`  - ${f}\n`);
    }
    process.stdout.write(`\n${this.passed} passed, ${this.failed} failed\n`);
    return this.failed === 0 ? 0 : 1;
  }
}

function indent(text) {
  return String(text)
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

module.exports = { log, run, runAsync, must, Reporter, assert };
