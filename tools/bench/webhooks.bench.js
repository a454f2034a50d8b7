'use strict';
// Webhook delivery benchmark: one webhooks service (the build output, in this process) on a fresh
// nats-server and PostgreSQL, job events published to WDS_EVENTS_V1, deliveries to local receivers.
// Run after building: npx tsc -b apps/webhooks/tsconfig.build.json && node tools/bench/webhooks.bench.js
// Knobs: BENCH_JOBS (default 30), BENCH_PAGES per job (default 98), BENCH_DEAD_EVENTS (default 400).
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { startNats, startPostgres } = require('../../libs/local-infra/dist');
const { Messaging } = require('../../libs/messaging/dist');
const { createLogger } = require('../../libs/observability/dist');
const { bootstrapService } = require('../../libs/service-kit/dist');
const { EVENTS, RPC } = require('../../libs/contracts/dist');
const { webhooksServiceOptions } = require('../../apps/webhooks/dist/webhooks.service');

const JOBS = Number(process.env.BENCH_JOBS ?? 30);
const PAGES = Number(process.env.BENCH_PAGES ?? 98);
const DEAD_EVENTS = Number(process.env.BENCH_DEAD_EVENTS ?? 400);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** A receiver that answers 200 at once ('ok') or never ('hang'); records arrival times by webhookId. */
async function receiver(mode) {
  const arrivals = new Map();
  const open = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!arrivals.has(body.webhookId)) arrivals.set(body.webhookId, performance.now());
      if (mode === 'hang') open.add(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

function event(jobId, type, url, data = []) {
  return {
    success: true,
    type,
    id: jobId,
    webhookId: crypto.randomUUID(),
    data,
    teamId: 'bench',
    webhook: { url },
  };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-webhooks-bench-'));
  const nats = await startNats({ dataDir: path.join(dir, 'nats') });
  const pg = await startPostgres({ dataDir: path.join(dir, 'pg') });
  const ok = await receiver('ok');
  const dead = await receiver('hang');
  const client = await Messaging.connect({
    servers: nats.url,
    name: 'bench',
    logger: createLogger({ service: 'bench', level: 'silent' }),
  });
  client.serve(RPC.webhookSecret, async () => ({ secret: 'bench-secret' }));
  const service = await bootstrapService(
    webhooksServiceOptions({
      NATS_URL: nats.url,
      DATABASE_URL: pg.url,
      HEALTH_PORT: '0',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      WDS_WEBHOOK_POLL_INTERVAL_MS: '100',
    }),
  );
  try {
    const page = [
      {
        markdown: '# Page\n\n' + 'Lorem ipsum dolor sit amet. '.repeat(80),
        metadata: { sourceURL: 'https://site.example/p' },
      },
    ];
    const run = async (label, withDead) => {
      const events = [];
      for (let j = 0; j < JOBS; j++) {
        const jobId = crypto.randomUUID();
        events.push(event(jobId, 'crawl.started', `${ok.url}/in`));
        for (let p = 0; p < PAGES; p++) events.push(event(jobId, 'crawl.page', `${ok.url}/in`, page));
        events.push(event(jobId, 'crawl.completed', `${ok.url}/in`));
      }
      const deadEvents = withDead
        ? Array.from({ length: DEAD_EVENTS }, () =>
            event(crypto.randomUUID(), 'crawl.started', `${dead.url}/in`),
          )
        : [];
      const published = new Map();
      const t0 = performance.now();
      // Interleaved, as many jobs of many teams would publish.
      const all = [...events];
      deadEvents.forEach((e, i) => all.splice(Math.floor((i * all.length) / deadEvents.length), 0, e));
      await Promise.all(
        all.map(async (e) => {
          await client.publish(EVENTS.job, e, { msgId: e.webhookId });
          published.set(e.webhookId, performance.now());
        }),
      );
      const tPublished = performance.now();
      let lastReport = performance.now();
      while (events.some((e) => !ok.arrivals.has(e.webhookId))) {
        await new Promise((r) => setTimeout(r, 20));
        if (performance.now() - lastReport > 5000) {
          lastReport = performance.now();
          const got = events.filter((e) => ok.arrivals.has(e.webhookId)).length;
          console.error(`  ... ${label}: ${got}/${events.length} delivered`);
        }
      }
      const t1 = performance.now();
      const pageLatency = events
        .filter((e) => e.type === 'crawl.page')
        .map((e) => ok.arrivals.get(e.webhookId) - published.get(e.webhookId))
        .sort((a, b) => a - b);
      return {
        label,
        events: events.length,
        publishMs: Math.round(tPublished - t0),
        totalMs: Math.round(t1 - t0),
        perSecond: Math.round(events.length / ((t1 - t0) / 1000)),
        pageP50: Math.round(percentile(pageLatency, 50)),
        pageP99: Math.round(percentile(pageLatency, 99)),
        deadConcurrentMax: withDead ? dead.arrivals.size : 0,
      };
    };
    const results = [
      await run('healthy receiver only', false),
      await run(`+ ${DEAD_EVENTS} events to a hanging receiver`, true),
    ];
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    console.log(`machine: ${os.cpus().length} x ${cpu}, node ${process.version}`);
    console.log(`jobs ${JOBS} x (started + ${PAGES} pages + completed)`);
    for (const r of results) {
      console.log(
        `${r.label}: ${r.events} deliveries in ${r.totalMs} ms (${r.perSecond}/s; publishing took ${r.publishMs} ms), ` +
          `page publish->receipt p50 ${r.pageP50} ms p99 ${r.pageP99} ms` +
          (r.deadConcurrentMax ? `; hanging receiver got ${r.deadConcurrentMax} attempts meanwhile` : ''),
      );
    }
  } finally {
    await service.stop();
    await client.drain();
    await ok.close();
    await dead.close();
    await pg.stop();
    await nats.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
