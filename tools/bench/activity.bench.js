'use strict';
// Team activity benchmark: the billing service (the build output, in this process) on a fresh
// nats-server and PostgreSQL, with BENCH_ACTIVITY_ROWS (default 10,000,000) generated activity rows
// over 30 daily partitions. Prints p50/p99 of GET /v2/team/activity's billing RPC (first page, deep
// pages reached by following cursors, with the endpoint filter), of the monthly usage aggregation
// (usage_monthly) against the same aggregation computed from the raw rows (baseline, same process),
// and the rate at which published activity events are recorded.
// Run: npm run bench -- activity   (knobs: BENCH_ACTIVITY_ROWS, BENCH_ACTIVITY_SAMPLES)
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { startNats, startPostgres } = require('../../libs/local-infra/dist');
const { Messaging } = require('../../libs/messaging/dist');
const { createLogger } = require('../../libs/observability/dist');
const { bootstrapService } = require('../../libs/service-kit/dist');
const { RPC } = require('../../libs/contracts/dist');
const { ActivityRecorder } = require('../../libs/credits/dist');
const { AppModule } = require('../../apps/billing/dist/app.module');
const { ListActivity } = require('../../apps/billing/dist/activity/list-activity.usecase');
const { BillingConfig } = require('../../apps/billing/dist/config');

const ROWS = Number(process.env.BENCH_ACTIVITY_ROWS ?? 10_000_000);
const SAMPLES = Number(process.env.BENCH_ACTIVITY_SAMPLES ?? 300);
const DAYS = 30;
const DAY_MS = 86_400_000;
/** The big team holds this share of all rows; the rest is spread over TEAMS small teams. */
const HOT_SHARE = 0.2;
const TEAMS = 2_000;
const HOT = 'team-hot';
const ENDPOINTS = ['scrape', 'scrape', 'scrape', 'scrape', 'crawl', 'batch_scrape', 'map'];

const say = (s) => process.stdout.write(`${s}\n`);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats(label, ms) {
  const s = [...ms].sort((a, b) => a - b);
  say(
    `${label.padEnd(58)} n=${String(s.length).padStart(4)}  p50 ${percentile(s, 50).toFixed(2)} ms  p99 ${percentile(s, 99).toFixed(2)} ms`,
  );
}

async function timed(fn) {
  const t = performance.now();
  const out = await fn();
  return { ms: performance.now() - t, out };
}

async function generate(pg) {
  const perDay = Math.ceil(ROWS / DAYS);
  const hotPerDay = Math.floor(perDay * HOT_SHARE);
  const started = performance.now();
  for (let d = 0; d < DAYS; d++) {
    const dayStart = Date.now() - (d + 1) * DAY_MS;
    const day = new Date(Math.floor(dayStart / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
    const nextDay = new Date(Math.floor(dayStart / DAY_MS) * DAY_MS + DAY_MS).toISOString().slice(0, 10);
    await pg.query(
      'SELECT billing.ensure_activity_partition($1::date), billing.ensure_activity_partition($2::date)',
      [day, nextDay],
    );
    // Rows spread over the 24 hours ending d days ago; the hot team gets HOT_SHARE of them.
    await pg.query(
      `INSERT INTO billing.activity (team_id, created_at, id, event_id, endpoint, api_version, target, api_key, credits)
       SELECT CASE WHEN g <= $3 THEN $4 ELSE 'team-' || (g % $5) END,
              to_timestamp(($1::bigint + (g::bigint * $6::bigint / $2)) / 1000.0),
              md5(g::text || $1::text), 'e' || md5(g::text || $1::text),
              ($7::text[])[1 + g % array_length($7::text[], 1)], 'v2',
              'https://site-' || (g % 997) || '.example/page/' || g, 'key' || lpad((g % 7)::text, 9, '0'), 1
       FROM generate_series(1, $2::int) g`,
      [dayStart, perDay, hotPerDay, HOT, TEAMS, DAY_MS, ENDPOINTS],
    );
    if (d % 5 === 4)
      say(`  generated ${(d + 1) * perDay} rows (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  await pg.query('ANALYZE billing.activity');
  // Monthly usage of the hot team: 24 months × 20 keys, and of the small teams: one month.
  await pg.query(
    `INSERT INTO billing.usage_monthly (team_id, month, api_key, credits)
     SELECT $1, (date_trunc('month', now()) - make_interval(months => m))::date, 'key' || k, 1000 + m * k
     FROM generate_series(0, 23) m, generate_series(1, 20) k`,
    [HOT],
  );
  return { perDay, hotPerDay, seconds: (performance.now() - started) / 1000 };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-activity-bench-'));
  const nats = await startNats({ dataDir: path.join(dir, 'nats') });
  const pgServer = await startPostgres({ dataDir: path.join(dir, 'pg') });
  const service = await bootstrapService({
    kind: 'billing',
    module: AppModule,
    configSchema: BillingConfig,
    migrations: { schema: 'billing', dir: path.join(__dirname, '..', '..', 'apps', 'billing', 'migrations') },
    env: { NATS_URL: nats.url, DATABASE_URL: pgServer.url, LOG_LEVEL: 'error', HEALTH_HOST: '127.0.0.1' },
  });
  const client = await Messaging.connect({
    servers: nats.url,
    name: 'bench',
    logger: createLogger({ service: 'bench', level: 'silent' }),
  });
  const pg = new Client({ connectionString: pgServer.url });
  await pg.connect();
  try {
    say(`generating ${ROWS.toLocaleString('en')} activity rows over ${DAYS} daily partitions ...`);
    const gen = await generate(pg);
    const window = DAY_MS;
    say(
      `generated in ${gen.seconds.toFixed(0)} s; the hot team has ~${gen.hotPerDay.toLocaleString('en')} rows per day, ` +
        `small teams ~${Math.round((gen.perDay - gen.hotPerDay) / TEAMS)} per day`,
    );
    const list = (teamId, extra = {}) =>
      client.request(RPC.activityList, { teamId, limit: 100, windowMs: window, ...extra });
    // Warm up connections and plans.
    for (let i = 0; i < 20; i++) await list(HOT);

    const first = [];
    for (let i = 0; i < SAMPLES; i++) first.push((await timed(() => list(HOT))).ms);
    stats('first page (hot team, limit 100, via NATS RPC)', first);

    const small = [];
    for (let i = 0; i < SAMPLES; i++) small.push((await timed(() => list(`team-${i % TEAMS}`))).ms);
    stats('first page (small teams, limit 100)', small);

    const filtered = [];
    for (let i = 0; i < SAMPLES; i++) filtered.push((await timed(() => list(HOT, { endpoint: 'crawl' }))).ms);
    stats('first page, endpoint=crawl (hot team)', filtered);

    // Deep pages: follow the cursor up to 300 pages (30,000 items) into the hot team's 24 hours.
    const walked = [];
    let cursor;
    let deepest;
    for (let depth = 0; depth < 300; depth++) {
      const { ms, out } = await timed(() => list(HOT, cursor ? { cursor } : {}));
      walked.push(ms);
      if (!out.cursor) break;
      deepest = cursor = out.cursor;
    }
    const from = Math.floor((walked.length * 2) / 3);
    stats(
      `deep pages (pages ${from + 1}-${walked.length} of a walk through ${walked.length * 100} items)`,
      walked.slice(from),
    );
    if (deepest) {
      const again = [];
      for (let i = 0; i < SAMPLES; i++) again.push((await timed(() => list(HOT, { cursor: deepest }))).ms);
      stats(`the page after item ${(walked.length - 1) * 100}, repeated`, again);
      // The same reads without NATS: billing's use case alone (SQL, cursor check and signing).
      const direct = service.app.get(ListActivity);
      const req = { teamId: HOT, limit: 100, windowMs: window };
      const sqlFirst = [];
      const sqlDeep = [];
      for (let i = 0; i < SAMPLES; i++) {
        sqlFirst.push((await timed(() => direct.execute(req))).ms);
        sqlDeep.push((await timed(() => direct.execute({ ...req, cursor: deepest }))).ms);
      }
      stats('  in billing alone (no NATS): first page', sqlFirst);
      stats('  in billing alone (no NATS): the deepest page', sqlDeep);
    }

    const monthly = [];
    for (let i = 0; i < SAMPLES; i++) {
      monthly.push(
        (await timed(() => client.request(RPC.usageHistorical, { teamId: HOT, byApiKey: true }))).ms,
      );
    }
    stats('monthly usage by API key (usage_monthly, 24 months × 20 keys)', monthly);
    const raw = [];
    for (let i = 0; i < 5; i++) {
      raw.push(
        (
          await timed(() =>
            pg.query(
              `SELECT date_trunc('month', created_at AT TIME ZONE 'UTC') AS m, api_key, sum(credits)
               FROM billing.activity WHERE team_id = $1 GROUP BY 1, 2`,
              [HOT],
            ),
          )
        ).ms,
      );
    }
    stats('baseline: the same aggregation from raw rows (30 days only)', raw);

    // Recording: events published through ActivityRecorder until billing has them all.
    const recorder = new ActivityRecorder(client);
    const N = 20_000;
    const team = `team-rec-${crypto.randomUUID()}`;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        recorder.record({
          eventId: `scrape:${team}:${i}`,
          teamId: team,
          id: crypto.randomUUID(),
          endpoint: 'scrape',
          createdAt: Date.now(),
          target: `https://example.com/${i}`,
          apiKey: 'benchkey0001',
          credits: 1,
        }),
      ),
    );
    const published = performance.now() - t0;
    for (;;) {
      const { rows } = await pg.query('SELECT count(*)::int AS n FROM billing.activity WHERE team_id = $1', [
        team,
      ]);
      if (rows[0].n >= N) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const recorded = performance.now() - t0;
    say(
      `recording: ${N} events published in ${published.toFixed(0)} ms (${Math.round((N / published) * 1000)}/s), ` +
        `all recorded by billing after ${recorded.toFixed(0)} ms (${Math.round((N / recorded) * 1000)}/s)`,
    );
  } finally {
    await pg.end();
    await client.drain();
    await service.stop();
    await pgServer.stop();
    await nats.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
