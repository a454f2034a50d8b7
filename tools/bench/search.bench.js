'use strict';
// POST /v2/search through the whole stack (`npm start`'s tools/stack/start.js as a child, its own
// NATS and PostgreSQL) against a real SearXNG (PyPI, libs/local-infra) whose json_engine asks a
// fixture search backend on 127.0.0.1. Baselines measured the same way in this process: the same
// query asked of SearXNG directly (what the gateway adds), and the same pages scraped one by one
// with POST /v2/scrape (what a search with scrapeOptions saves a client).
// Run after the build: npx tsc -b tsconfig.build.json && node tools/bench/search.bench.js
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const ROOT = path.resolve(__dirname, '..', '..');
const REQUESTS = Number(process.env.BENCH_SEARCH_REQUESTS ?? 200);
const SCRAPE_ROUNDS = Number(process.env.BENCH_SEARCH_SCRAPE_ROUNDS ?? 20);
const RESULTS = 5;
const out = (s) => process.stdout.write(`${s}\n`);

const { startSearchFixtureBackend, startTestSearxng } = require(
  path.join(ROOT, 'libs', 'testing', 'dist', 'search-engine.js'),
);
const { startFixtureSite } = require(path.join(ROOT, 'libs', 'testing', 'dist', 'fixture-site.js'));
const { freePort } = require(path.join(ROOT, 'libs', 'local-infra', 'dist', 'index.js'));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function measure(n, fn) {
  for (let i = 0; i < Math.min(10, n); i++) await fn(i);
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

function startStack(env) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-bench-search-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'tools', 'stack', 'start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      WDS_DATA_DIR: dataDir,
      WDS_SKIP_BUILD: '1',
      WDS_SKIP_PROVISION: '1',
      WDS_LOCAL_MODEL: 'none',
      WDS_DOCS_EMBEDDING_DIR: '',
      WDS_NATS_PORT: '0',
      WDS_POSTGRES_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d.toString();
      if (/^WDS_READY /m.test(buf)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the stack exited (${code}) before it was ready`)));
  });
  const stop = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { ready, stop };
}

async function main() {
  const site = await startFixtureSite();
  const pages = ['/article', '/docs', '/docs/a', '/docs/b', '/blog'];
  const corpus = pages.map((p, i) => ({
    kind: 'web',
    url: `${site.url}${p}`,
    title: `Kettle page ${i}`,
    content: 'kettle',
  }));
  const backend = await startSearchFixtureBackend(corpus);
  const searxng = await startTestSearxng(backend);
  const key = `bench-search-${crypto.randomBytes(12).toString('hex')}`;
  const port = await freePort();
  const stack = startStack({
    PORT: String(port),
    WDS_BOOTSTRAP_API_KEY: key,
    WDS_SEARXNG_URL: searxng.url,
    WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
  });
  try {
    await stack.ready;
    const api = `http://127.0.0.1:${port}`;
    const post = async (route, body) => {
      const res = await fetch(`${api}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (res.status !== 200) throw new Error(`${route}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const direct = await measure(REQUESTS, async () => {
      const res = await fetch(`${searxng.url}/search?q=kettle&format=json&categories=general&pageno=1`);
      const json = await res.json();
      if (json.results.length !== RESULTS) throw new Error('SearXNG answered the wrong results');
    });
    const gateway = await measure(REQUESTS, async () => {
      const json = await post('/v2/search', { query: 'kettle', limit: RESULTS });
      if (json.data.web.length !== RESULTS) throw new Error('the search answered the wrong results');
    });
    // maxAge 0: every round fetches the pages again (no cache hit on either side).
    const scrapeOptions = { formats: ['markdown'], maxAge: 0 };
    const searchScrape = await measure(SCRAPE_ROUNDS, async () => {
      const json = await post('/v2/search', { query: 'kettle', limit: RESULTS, scrapeOptions });
      if (!json.data.web.every((r) => typeof r.markdown === 'string'))
        throw new Error('a result was not scraped');
    });
    const oneByOne = await measure(SCRAPE_ROUNDS, async () => {
      await post('/v2/search', { query: 'kettle', limit: RESULTS });
      for (const p of pages) await post('/v2/scrape', { url: `${site.url}${p}`, ...scrapeOptions });
    });
    const f = (v) => v.toFixed(1).padStart(7);
    out(
      `search: ${RESULTS} results per query, ${REQUESTS} sequential requests (${SCRAPE_ROUNDS} with scraping)`,
    );
    out(`${'what'.padEnd(60)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)}`);
    const row = (what, r) => out(`${what.padEnd(60)} ${f(r.p50)} ${f(r.p95)}`);
    row('SearXNG directly (baseline)', direct);
    row('POST /v2/search (gateway + SearXNG)', gateway);
    row(`POST /v2/search with scrapeOptions (${RESULTS} pages scraped)`, searchScrape);
    row(`search, then ${RESULTS} POST /v2/scrape one by one (baseline)`, oneByOne);
    out(
      `gateway overhead p50: ${(gateway.p50 - direct.p50).toFixed(1)} ms; scrapeOptions vs one by one: ${(oneByOne.p50 / searchScrape.p50).toFixed(2)}x faster`,
    );
  } finally {
    await stack.stop();
    await searxng.stop();
    await backend.close();
    await site.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
