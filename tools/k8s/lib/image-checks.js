'use strict';
// The image, without Docker: deploy/Dockerfile's build stage done natively (copy what it copies,
// npm ci, tsc -b, npm prune --omit=dev), its runtime stage's file set assembled in a directory, and
// every service started from that pruned tree against real NATS and PostgreSQL: health, a scrape
// through the gateway, and the OpenTelemetry metrics each one exports (checked against the Grafana
// dashboard's queries).
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { run, runAsync, must, assert, log } = require('./run');
const { sleep } = require('./cluster');
const { SERVICES } = require('./static-checks');
const { metricNamesInDashboard, prometheusNames, EXTERNAL_METRIC_PREFIXES } = require('./metrics');
const { ensureEmbeddingModel, EMBEDDING_MODEL_ID } = require('../../stack/lib/embedding-model');

// deploy/Dockerfile: `COPY package.json package-lock.json tsconfig.*.json`, `COPY libs`, `COPY apps`,
// minus deploy/Dockerfile.dockerignore.
const BUILD_FILES = [
  '.npmrc',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.build.json',
  'tsconfig.dev.json',
  'libs',
  'apps',
];
const IGNORED = /(^|\/)(node_modules|dist|coverage|tmp|\.data|\.nx)(\/|$)|\.tsbuildinfo$|\.log$/;
// The runtime stage's COPY --from=build lines, plus deploy/migrate.js and docs from the context.
const RUNTIME_FROM_BUILD = ['package.json', 'node_modules', 'libs', 'apps'];
// The models stage's output in the runtime image (its WDS_DOCS_EMBEDDING_DIR), under the work folder here.
const IMAGE_MODEL_DIR = `opt/wds/models/${EMBEDDING_MODEL_ID}`;

function copyTree(from, to, filter = () => true) {
  fs.cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => filter(path.relative(from, src)),
  });
}

/** Bare module specifiers required by the compiled JavaScript under dir (tests excluded). */
function requiredModules(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.js$/.test(e.name) && !/\.(spec|test)\.js$/.test(e.name)) {
        const text = fs.readFileSync(p, 'utf8');
        for (const m of text.matchAll(/require\((['"])([^'"./][^'"]*)\1\)/g)) {
          if (!m[2].startsWith('node:')) found.push({ file: p, spec: m[2] });
        }
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return found;
}

/** A minimal OTLP/HTTP (JSON) receiver: keeps every resource's attributes and metric names. */
function startOtlpReceiver() {
  const seen = []; // { resource: {k: v}, metrics: [{ name, unit, kind }] }
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/metrics') {
        try {
          for (const rm of JSON.parse(body).resourceMetrics ?? []) {
            const resource = Object.fromEntries(
              (rm.resource?.attributes ?? []).map((a) => [a.key, Object.values(a.value ?? {})[0]]),
            );
            const metrics = (rm.scopeMetrics ?? []).flatMap((sm) =>
              (sm.metrics ?? []).map((m) => ({
                name: m.name,
                unit: m.unit ?? '',
                kind: Object.keys(m).find((k) =>
                  ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'].includes(k),
                ),
                monotonic: m.sum?.isMonotonic,
              })),
            );
            seen.push({ resource, metrics });
          }
        } catch {
          // a protobuf or malformed body: not what the services are configured to send
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, seen })),
  );
}

function fixtureServer() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Image check</title></head><body><main><h1>Pruned tree works</h1><p>Served to the production build.</p></main></body></html>',
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })),
  );
}

async function getStatus(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await res.text();
    return res.status;
  } catch {
    return 0;
  }
}

async function imageChecks(t, { root }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-image-'));
  const build = path.join(work, 'build');
  const runtime = path.join(work, 'app');
  const procs = [];
  let infra = [];
  try {
    let built = false;
    await t.check(
      'image build stage natively: npm ci, tsc -b, npm prune --omit=dev (deploy/Dockerfile)',
      async () => {
        fs.mkdirSync(build);
        for (const f of BUILD_FILES.filter((b) => fs.existsSync(path.join(root, b))))
          copyTree(path.join(root, f), path.join(build, f), (rel) => !IGNORED.test(rel));
        const env = {
          ...process.env,
          CI: 'true',
          NX_DAEMON: 'false',
          npm_config_audit: 'false',
          npm_config_fund: 'false',
        };
        must(
          await runAsync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
            cwd: build,
            env,
          }),
          'npm ci',
        );
        must(
          await runAsync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
            cwd: build,
            env,
          }),
          'tsc -b',
        );
        must(
          await runAsync('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], {
            cwd: build,
            env,
          }),
          'npm prune',
        );
        must(
          run('find', ['apps', 'libs', '-name', '*.tsbuildinfo', '-delete'], { cwd: build }),
          'find -delete',
        );
        fs.mkdirSync(runtime);
        for (const f of RUNTIME_FROM_BUILD) copyTree(path.join(build, f), path.join(runtime, f));
        copyTree(path.join(root, 'deploy', 'migrate.js'), path.join(runtime, 'deploy', 'migrate.js'));
        copyTree(path.join(root, 'docs'), path.join(runtime, 'docs'));
        for (const f of ['README.md', 'charts/README.md', 'tools/stack/README.md']) {
          copyTree(path.join(root, f), path.join(runtime, f));
        }
        // The models stage: the embedding model, fetched by the script it runs (cached as `npm
        // test` caches it), at the image's path under the work folder.
        const model = ensureEmbeddingModel();
        assert(model, 'the docs-search embedding model could not be fetched (the models stage would fail)');
        copyTree(model, path.join(work, IMAGE_MODEL_DIR));
        for (const dev of ['typescript', 'jest', 'nx']) {
          assert(
            !fs.existsSync(path.join(runtime, 'node_modules', dev)),
            `devDependency ${dev} survived the prune`,
          );
        }
        built = true;
      },
    );
    if (!built) return;

    await t.check(
      'every module the compiled services and libraries require resolves in the pruned tree',
      () => {
        const dirs = [...SERVICES.map((s) => path.join(runtime, 'apps', s, 'dist'))];
        for (const lib of fs.readdirSync(path.join(runtime, 'libs'))) {
          if (['testing', 'local-infra'].includes(lib)) continue; // test support, never loaded by a service
          dirs.push(path.join(runtime, 'libs', lib, 'dist'));
        }
        const missing = new Set();
        for (const { file, spec } of dirs.flatMap(requiredModules)) {
          try {
            require.resolve(spec, { paths: [path.dirname(file)] });
          } catch {
            missing.add(`${spec} (${path.relative(runtime, file)})`);
          }
        }
        assert(missing.size === 0, `not installed after npm prune --omit=dev:\n${[...missing].join('\n')}`);
      },
    );

    // Real NATS and PostgreSQL (the repository's own local-infra, from the developer tree).
    const localInfra = require(path.join(root, 'libs', 'local-infra', 'dist'));
    const nats = await localInfra.startNats({ dataDir: path.join(work, 'nats') });
    infra.push(nats);
    const pg = await localInfra.startPostgres({ dataDir: path.join(work, 'pg') });
    infra.push(pg);
    const otlp = await startOtlpReceiver();
    const fixture = await fixtureServer();
    infra.push({ stop: async () => (otlp.server.close(), fixture.server.close()) });

    const baseEnv = {
      PATH: process.env.PATH,
      HOME: path.join(work, 'home'),
      NODE_ENV: 'production',
      // The Dockerfile's ENV.
      WDS_DOCS_ROOT: runtime,
      WDS_DOCS_EMBEDDING_DIR: path.join(work, IMAGE_MODEL_DIR),
      NATS_URL: nats.url,
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'warn',
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1/32',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    };
    fs.mkdirSync(baseEnv.HOME);

    await t.check(
      'node deploy/migrate.js <app> (the chart hook) migrates every service from the pruned tree',
      async () => {
        for (const svc of SERVICES) {
          must(
            await runAsync(process.execPath, ['deploy/migrate.js', svc], { cwd: runtime, env: baseEnv }),
            `migrate ${svc}`,
          );
        }
      },
    );

    // The image's ENTRYPOINT: tini as the parent (signals forwarded, zombies reaped).
    const tini = '/usr/bin/tini';
    await t.check('tini (the image entrypoint) is installed (apt-get install tini)', () => {
      if (!fs.existsSync(tini) && process.getuid?.() === 0) {
        const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
        if (run('apt-get', ['install', '-y', '--no-install-recommends', 'tini'], { env }).code !== 0) {
          run('apt-get', ['update'], { env });
          must(
            run('apt-get', ['install', '-y', '--no-install-recommends', 'tini'], { env }),
            'apt-get install tini',
          );
        }
      }
      assert(fs.existsSync(tini), `${tini} missing`);
    });

    const ports = {};
    const key = `wds_${'imagecheck00'}_${require('node:crypto').randomBytes(32).toString('base64url')}`;
    let healthy = false;
    await t.check('every service starts from the pruned tree and answers /health/ready', async () => {
      for (const svc of SERVICES) {
        const port = await new Promise((r) => {
          const s = http.createServer().listen(0, '127.0.0.1', () => (r(s.address().port), s.close()));
        });
        ports[svc] = port;
        const env = {
          ...baseEnv,
          HEALTH_PORT: String(port),
          WDS_MIGRATE_ON_START: 'false',
          WDS_INSTANCE_ID: `${svc}-image-0`,
          OTEL_SERVICE_NAME: svc,
          // What the chart sets from the downward API.
          OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${svc}-image-0,k8s.pod.name=${svc}-image-0,k8s.namespace.name=image-check`,
          ...(svc === 'gateway' ? { PORT: String(port), WDS_BOOTSTRAP_API_KEY: key } : {}),
        };
        const out = fs.openSync(path.join(work, `${svc}.log`), 'a');
        const cmd = fs.existsSync(tini) ? [tini, '--', process.execPath] : [process.execPath];
        const child = spawn(cmd[0], [...cmd.slice(1), `apps/${svc}/dist/main.js`], {
          cwd: runtime,
          env,
          stdio: ['ignore', out, out],
        });
        fs.closeSync(out);
        child.svc = svc;
        procs.push(child);
      }
      const deadline = Date.now() + 180_000;
      let pending = [...SERVICES];
      while (pending.length && Date.now() < deadline) {
        const dead = procs.find((p) => p.exitCode !== null);
        if (dead)
          throw new Error(
            `${dead.svc} exited ${dead.exitCode}:\n${fs.readFileSync(path.join(work, `${dead.svc}.log`), 'utf8').slice(-3000)}`,
          );
        const status = await Promise.all(
          pending.map((s) => getStatus(`http://127.0.0.1:${ports[s]}/health/ready`)),
        );
        pending = pending.filter((_, i) => status[i] !== 200);
        if (pending.length) await sleep(1000);
      }
      assert(pending.length === 0, `not ready after 180 s: ${pending.join(', ')}`);
      healthy = true;
    });
    if (!healthy) return;

    await t.check(
      'a scrape through the gateway of the production build returns the page as markdown',
      async () => {
        const res = await fetch(`http://127.0.0.1:${ports.gateway}/v2/scrape`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `http://127.0.0.1:${fixture.port}/`, formats: ['markdown'] }),
          signal: AbortSignal.timeout(90_000),
        });
        const body = await res.json();
        assert(
          res.status === 200 && body.success === true,
          `HTTP ${res.status}: ${JSON.stringify(body).slice(0, 1000)}`,
        );
        assert(/Pruned tree works/.test(body.data?.markdown ?? ''), `markdown: ${body.data?.markdown}`);
      },
    );

    await t.check(
      "docs-search in the image ranks by meaning too: its passages get vectors of the image's embedding model",
      async () => {
        const { Database } = require(path.join(root, 'libs', 'database', 'dist'));
        const db = new Database({ url: pg.url });
        try {
          const deadline = Date.now() + 90_000;
          let embedded = 0;
          while (Date.now() < deadline) {
            const { rows } = await db.query(
              `SELECT count(*)::int AS n FROM docs_search.passages
                WHERE embedding IS NOT NULL AND embedding_model LIKE $1`,
              [`${EMBEDDING_MODEL_ID}@%`],
            );
            embedded = rows[0].n;
            if (embedded > 0) break;
            await sleep(1000);
          }
          assert(
            embedded > 0,
            `no passage embedded by ${EMBEDDING_MODEL_ID} after 90 s:\n${fs.readFileSync(path.join(work, 'docs-search.log'), 'utf8').slice(-2000)}`,
          );
          log(`docs-search: ${embedded} passages embedded so far by ${EMBEDDING_MODEL_ID}`);
        } finally {
          await db.close();
        }
      },
    );

    await t.check(
      'every service exports metrics with its own service.instance.id, pod name and namespace',
      async () => {
        const deadline = Date.now() + 30_000;
        let missing = [];
        while (Date.now() < deadline) {
          missing = SERVICES.filter(
            (svc) =>
              !otlp.seen.some(
                (s) =>
                  s.resource['service.instance.id'] === `${svc}-image-0` &&
                  s.resource['k8s.pod.name'] === `${svc}-image-0` &&
                  s.resource['k8s.namespace.name'] === 'image-check' &&
                  s.resource['service.name'] === svc,
              ),
          );
          if (!missing.length) break;
          await sleep(1000);
        }
        assert(missing.length === 0, `no metrics with the expected resource from: ${missing.join(', ')}`);
      },
    );

    await t.check(
      'the Grafana dashboard queries only metrics that are exported (by the services or named exporters)',
      async () => {
        const dashboard = metricNamesInDashboard(path.join(root, 'deploy', 'grafana-dashboard.json'));
        assert(dashboard.length > 5, `only ${dashboard.length} metric names found in the dashboard`);
        // The scrape above made HTTP server and client requests; their histograms come with the
        // next periodic export (every second here).
        const deadline = Date.now() + 20_000;
        let exported;
        let unknown;
        for (;;) {
          exported = new Set(otlp.seen.flatMap((s) => s.metrics.flatMap(prometheusNames)));
          unknown = dashboard.filter(
            (m) => !exported.has(m) && !EXTERNAL_METRIC_PREFIXES.some((p) => m.startsWith(p)),
          );
          if (unknown.length === 0 || Date.now() > deadline) break;
          await sleep(1000);
        }
        log(
          `exported by the services: ${[...exported]
            .filter((m) => /^(wds|http)_/.test(m))
            .sort()
            .join(' ')}`,
        );
        assert(
          unknown.length === 0,
          `queried but exported by nothing: ${unknown.join(', ')}\nexported: ${[...exported].sort().join(', ')}`,
        );
      },
    );

    await t.check('every service drains and exits 0 on SIGTERM', async () => {
      for (const p of procs) p.kill('SIGTERM');
      const codes = await Promise.all(
        procs.map((p) =>
          p.exitCode !== null
            ? p.exitCode
            : Promise.race([
                new Promise((r) => p.on('exit', (c) => r(c))),
                sleep(30_000).then(() => 'timeout'),
              ]),
        ),
      );
      const bad = procs
        .map((p, i) => [p.svc, codes[i]])
        .filter(([, c]) => c !== 0)
        .map(([svc, c]) => `${svc}: ${c}`);
      assert(bad.length === 0, bad.join(', '));
    });
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
    for (const s of infra.reverse()) await s.stop().catch(() => undefined);
    if (!process.env.WDS_K8S_KEEP) fs.rmSync(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

module.exports = { imageChecks };
