#!/usr/bin/env node
'use strict';
// `npm run test:fuzz` (and .ci/run after `npm test`): boots the whole stack the way `npm start` does
// (fresh data directory, free port), then runs Schemathesis from PyPI (pinned, in a venv this script
// creates) against GET /v2/openapi.json with the bootstrap key. Pass rule: no answer is a 5xx
// except the documented ones (tools/fuzz/wds_checks.py); bounded examples keep it to a few minutes.
// Web search (POST /v2/search, extract without urls) asks a real SearXNG whose only engines are a
// fixture search backend on 127.0.0.1 (@wds/testing), so its code paths are fuzzed too.
// Env: WDS_FUZZ_MAX_EXAMPLES (15), WDS_FUZZ_WORKERS (2), WDS_FUZZ_VENV (.cache/fuzz-venv),
// WDS_FUZZ_SEED (fixed, so a CI failure reproduces), WDS_FUZZ_REPORT_DIR (.cache/fuzz-report).
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const SCHEMATHESIS = 'schemathesis==4.32.5';
const VENV = path.resolve(ROOT, process.env.WDS_FUZZ_VENV || '.cache/fuzz-venv');
const REPORT_DIR = path.resolve(ROOT, process.env.WDS_FUZZ_REPORT_DIR || '.cache/fuzz-report');
const MAX_EXAMPLES = process.env.WDS_FUZZ_MAX_EXAMPLES || '15';
const WORKERS = process.env.WDS_FUZZ_WORKERS || '2';
const SEED = process.env.WDS_FUZZ_SEED || '19';
const READY_TIMEOUT_MS = 330_000;
const ADMIN_TOKEN = require('node:crypto').randomBytes(24).toString('hex');

const say = (s) => process.stdout.write(`fuzz         | ${s}\n`);

function ensureVenv() {
  const bin = path.join(VENV, 'bin', 'schemathesis');
  const pinned = path.join(VENV, '.pinned');
  if (fs.existsSync(bin) && fs.existsSync(pinned) && fs.readFileSync(pinned, 'utf8') === SCHEMATHESIS)
    return bin;
  say(`creating ${path.relative(ROOT, VENV)} with ${SCHEMATHESIS}`);
  fs.rmSync(VENV, { recursive: true, force: true });
  for (const [cmd, args] of [
    ['python3', ['-m', 'venv', VENV]],
    [path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', SCHEMATHESIS]],
  ]) {
    const res = spawnSync(cmd, args, { stdio: 'inherit' });
    if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${res.status})`);
  }
  fs.writeFileSync(pinned, SCHEMATHESIS);
  return bin;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** tools/stack/start.js on its own data directory; resolves once it prints WDS_READY. */
async function startStack(searxngUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-fuzz-'));
  const port = await freePort();
  const env = {
    ...process.env,
    WDS_DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    WDS_START_TIMEOUT_MS: process.env.WDS_START_TIMEOUT_MS || '300000',
    WDS_ADMIN_TOKEN: ADMIN_TOKEN,
    WDS_SEARXNG_URL: searxngUrl,
    // No embedded model: with the default 1.5B model on 2 CPU cores every fuzzed LLM format or
    // docs question waits tens of seconds for it, and the run takes hours. Without a provider those
    // requests get their documented 400 (docs search quotes passages); the LLM code paths are
    // covered by their own suites against a real model server. WDS_FUZZ_LOCAL_MODEL overrides it.
    WDS_LOCAL_MODEL: process.env.WDS_FUZZ_LOCAL_MODEL || 'none',
    // Docs search runs as shipped, with its embedding model (the stack provisions it): the vectors
    // are computed in the model's own thread, so the start-up embedding no longer starves the
    // service's PostgreSQL connects (that once answered a fuzzed question 503). Set
    // WDS_FUZZ_DOCS_EMBEDDING_DIR='' to rank by full text only.
    ...(process.env.WDS_FUZZ_DOCS_EMBEDDING_DIR !== undefined
      ? { WDS_DOCS_EMBEDDING_DIR: process.env.WDS_FUZZ_DOCS_EMBEDDING_DIR }
      : {}),
  };
  delete env.WDS_LLM_BASE_URL;
  delete env.NATS_URL;
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [path.join(ROOT, 'tools', 'stack', 'start.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the stack did not start in time')), READY_TIMEOUT_MS);
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const m = /WDS_READY url=(\S+)/.exec(buffered);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
      if (buffered.length > 1e6) buffered = buffered.slice(-1e5);
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    child.once('exit', (code) => reject(new Error(`the stack exited (${code}) before it was ready`)));
  });
  // A team of its own with limits high enough that the fuzzer reaches the logic, not the 429.
  const admin = await fetch(`${url}/admin/v1/teams`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'fuzz',
      credits: 1_000_000_000,
      limits: { requestsPerMinute: 1_000_000, maxConcurrency: 1000 },
    }),
  });
  if (admin.status !== 201)
    throw new Error(`creating the fuzz team failed: ${admin.status} ${await admin.text()}`);
  const key = (await admin.json()).apiKey;
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }).then(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { url, key, stop };
}

/** SearXNG (from PyPI, provisioned once) asking a fixture backend of a few results. */
async function startSearch() {
  const infra = require(path.join(ROOT, 'libs', 'local-infra', 'dist', 'index.js'));
  const testing = require(path.join(ROOT, 'libs', 'testing', 'dist', 'search-engine.js'));
  await infra.ensureSearxngRuntime();
  const words = 'string example test null true false data page search kettle';
  const backend = await testing.startSearchFixtureBackend([
    { kind: 'web', url: 'https://example.org/fuzz', title: 'Fuzz page', content: words },
    { kind: 'web', url: 'https://example.org/fuzz-2', title: 'Fuzz page two', content: words },
    { kind: 'news', url: 'https://example.org/news', title: 'Fuzz news', content: words },
    {
      kind: 'images',
      url: 'https://example.org/img',
      title: 'Fuzz image',
      content: words,
      img: 'https://example.org/a.jpg',
    },
  ]);
  const searxng = await testing.startTestSearxng(backend);
  return {
    url: searxng.url,
    stop: async () => {
      await searxng.stop();
      await backend.close();
    },
  };
}

async function main() {
  const bin = ensureVenv();
  say('starting SearXNG with a fixture search backend');
  const search = await startSearch();
  say('starting the stack (tools/stack/start.js)');
  const stack = await startStack(search.url).catch(async (err) => {
    await search.stop();
    throw err;
  });
  let code = 1;
  try {
    say(`stack ready at ${stack.url}; fuzzing ${stack.url}/v2/openapi.json`);
    fs.mkdirSync(REPORT_DIR, { recursive: true });
    const args = [
      'run',
      `${stack.url}/v2/openapi.json`,
      '--header',
      `Authorization: Bearer ${stack.key}`,
      '--checks',
      'no_undocumented_server_error',
      '--max-examples',
      MAX_EXAMPLES,
      '--workers',
      WORKERS,
      '--seed',
      SEED,
      // schemathesis 4.32.5's coverage phase sometimes crashes inside its own case generator on
      // this operation's body schema (a KeyError, reported as "Inconsistent results"), which is
      // not an answer of ours; its input is covered by the extract/agent integration tests.
      '--exclude-operation-id',
      'startAgent',
      '--request-timeout',
      '120',
      '--report',
      'junit',
      '--report-dir',
      REPORT_DIR,
    ];
    const res = spawnSync(bin, args, {
      stdio: 'inherit',
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: 'wds_checks', PYTHONPATH: __dirname },
    });
    code = res.status ?? 1;
    say(code === 0 ? 'no 5xx answers' : `schemathesis failed (exit ${code}); report in ${REPORT_DIR}`);
  } finally {
    await stack.stop();
    await search.stop();
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`fuzz: ${err.message}\n`);
    process.exit(1);
  },
);
