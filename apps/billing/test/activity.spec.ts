import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CONSUMERS, ErrorCode, RPC, type ActivityEventInput } from '@wds/contracts';
import { ActivityRecorder } from '@wds/credits';
import { startNats, type RunningServer } from '@wds/local-infra';
import { Messaging } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { bootstrapService, type RunningService } from '@wds/service-kit';
import { createTestDatabase } from '@wds/testing';
import { billingServiceOptions } from '../src/billing.service-options';
import { BillingConfig } from '../src/config';
import { rejection } from './support/billing-harness';

jest.setTimeout(120_000);

const DAY = 86_400_000;

/**
 * Activity and token usage recorded by billing from WDS_ACTIVITY_V1 (real NATS JetStream and
 * PostgreSQL): once per event id across redeliveries, republishing and a billing restart; listed
 * newest first with a tamper-proof keyset cursor; usage per month and API key.
 */
describe('team activity and usage (billing)', () => {
  let natsDir: string;
  let nats: RunningServer;
  let db: { url: string; drop: () => Promise<void> };
  let billing: RunningService<BillingConfig> | undefined;
  let client: Messaging;
  let recorder: ActivityRecorder;
  let pg: Client;

  const startService = async () =>
    bootstrapService(
      billingServiceOptions({
        NATS_URL: nats.url,
        DATABASE_URL: db.url,
        LOG_LEVEL: 'error',
        HEALTH_HOST: '127.0.0.1',
      }),
    );

  beforeAll(async () => {
    natsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-billing-activity-'));
    nats = await startNats({ dataDir: natsDir });
    db = await createTestDatabase('billing_activity');
    billing = await startService();
    client = await Messaging.connect({
      servers: nats.url,
      name: 'activity-test',
      logger: createLogger({ service: 'test', level: 'error' }),
    });
    recorder = new ActivityRecorder(client);
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    await client?.drain();
    await billing?.stop();
    await db?.drop();
    await nats?.stop();
    fs.rmSync(natsDir, { recursive: true, force: true });
  });

  const event = (teamId: string, over: Partial<ActivityEventInput> = {}): ActivityEventInput => {
    const id = over.id ?? randomUUID();
    return {
      eventId: `${over.endpoint ?? 'scrape'}:${id}`,
      teamId,
      id,
      endpoint: 'scrape',
      createdAt: Date.now(),
      target: `https://example.com/${id}`,
      apiKey: 'abcdefghijkl',
      credits: 1,
      ...over,
    };
  };

  const list = (
    teamId: string,
    extra: { limit?: number; cursor?: string; endpoint?: 'scrape' | 'crawl' } = {},
  ) => client.request(RPC.activityList, { teamId, limit: extra.limit ?? 50, windowMs: DAY, ...extra });

  const count = async (teamId: string): Promise<number> =>
    Number(
      (await pg.query('SELECT count(*) FROM billing.activity WHERE team_id = $1', [teamId])).rows[0].count,
    );

  async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A new team granted 5,000 credits and a credit block of `amount` taken for it. */
  async function teamWithBlock(amount: number) {
    const team = randomUUID();
    await client.request(RPC.creditsGrant, {
      teamId: team,
      amount: 5_000,
      reason: 'test',
      idempotencyKey: randomUUID(),
    });
    const block = await client.request(RPC.creditsBlockTake, {
      teamId: team,
      amount,
      minimum: 1,
      holder: 'test',
    });
    return { team, block };
  }

  const activityConsumer = () =>
    client.jsm.consumers.info(CONSUMERS.billingActivity.stream, CONSUMERS.billingActivity.durable);

  /**
   * Positive barrier: billing has finished with every activity message published so far (none
   * waiting, none delivered and unacknowledged), so a count read now is final, not early.
   */
  const activityCaughtUp = () =>
    until(async () => {
      const info = await activityConsumer();
      return info.num_pending === 0 && info.num_ack_pending === 0;
    }, 60_000);

  it('records each event id once, however often it is published', async () => {
    const team = randomUUID();
    const events = Array.from({ length: 30 }, (_, i) => event(team, { createdAt: Date.now() - i * 1000 }));
    await Promise.all(events.map((e) => recorder.record(e)));
    // Published again as other messages (other message ids, so JetStream's dedup does not apply).
    await Promise.all(events.slice(0, 10).map((e) => recorder.record(e)));
    await until(async () => (await count(team)) >= 30);
    await activityCaughtUp();
    expect(await count(team)).toBe(30);
    const page = await list(team, { limit: 100 });
    expect(page.data.map((d) => d.id)).toEqual(events.map((e) => e.id));
    expect(page.data[0]).toMatchObject({ endpoint: 'scrape', api_version: 'v2', target: events[0].target });
    expect(page.hasMore).toBe(false);
    expect(page.cursor).toBeNull();
  });

  it('loses nothing published while billing is down and counts a redelivered batch once', async () => {
    const team = randomUUID();
    await recorder.record(event(team));
    await until(async () => (await count(team)) === 1);
    await billing!.stop();
    billing = undefined;
    const whileDown = Array.from({ length: 25 }, () => event(team));
    // Published in the same tick: one message carries the activity and the token usage.
    await Promise.all([
      ...whileDown.map((e) => recorder.record(e)),
      recorder.reportTokens({
        eventId: `tok-${team}`,
        teamId: team,
        apiKey: 'abcdefghijkl',
        endpoint: 'scrape',
        inputTokens: 100,
        outputTokens: 20,
        at: Date.now(),
      }),
    ]);
    // The first delivery after the restart fails (the table is away), so the batch is redelivered.
    await pg.query('ALTER TABLE billing.token_events RENAME TO token_events_away');
    billing = await startService();
    // Barrier: the batch was delivered again, so its first delivery (against the missing table) failed.
    await until(async () => (await activityConsumer()).num_redelivered > 0, 60_000);
    expect(await count(team)).toBe(1);
    await pg.query('ALTER TABLE billing.token_events_away RENAME TO token_events');
    await until(async () => (await count(team)) === 26);
    const tokens = await pg.query(
      'SELECT llm_input_tokens, llm_output_tokens FROM billing.usage_monthly WHERE team_id = $1',
      [team],
    );
    expect(tokens.rows).toEqual([{ llm_input_tokens: '100', llm_output_tokens: '20' }]);
    // The same token event again: not counted twice.
    await recorder.reportTokens({
      eventId: `tok-${team}`,
      teamId: team,
      apiKey: 'abcdefghijkl',
      endpoint: 'scrape',
      inputTokens: 100,
      outputTokens: 20,
      at: Date.now(),
    });
    await recorder.record(event(team, { id: whileDown[0].id, createdAt: whileDown[0].createdAt }));
    await activityCaughtUp();
    expect(await count(team)).toBe(26);
    const hist = await client.request(RPC.usageHistorical, { teamId: team, byApiKey: true });
    expect(hist.periods).toEqual([
      expect.objectContaining({
        apiKey: 'wds_abcdefghijkl_********',
        creditsUsed: 0,
        llmInputTokens: 100,
        llmOutputTokens: 20,
      }),
    ]);
  });

  it('pages newest first with a keyset cursor, stable while new events arrive, filtered by endpoint', async () => {
    const team = randomUUID();
    const base = Date.now() - 60_000;
    // Same timestamps in pairs: the order falls back to id, and no pair is split or repeated.
    const events = Array.from({ length: 120 }, (_, i) =>
      event(team, { createdAt: base + Math.floor(i / 2) * 10, endpoint: i % 3 === 0 ? 'crawl' : 'scrape' }),
    );
    await Promise.all(events.map((e) => recorder.record(e)));
    await until(async () => (await count(team)) === 120);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(team, { limit: 7, cursor });
      seen.push(...page.data.map((d) => d.id));
      // New activity arrives between pages, newer and (a late report) older than the cursor.
      await recorder.record(event(team, { createdAt: Date.now() }));
      await recorder.record(event(team, { createdAt: base - 5_000 }));
      cursor = page.cursor ?? undefined;
      expect(page.hasMore).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(120 / 7));
    const expected = [...events]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map((e) => e.id);
    expect(seen).toEqual(expected);

    const crawls = await list(team, { endpoint: 'crawl', limit: 100 });
    expect(crawls.data.every((d) => d.endpoint === 'crawl')).toBe(true);
    expect(crawls.data.length).toBeGreaterThanOrEqual(40);

    // A cursor is bound to its team and filter, and cannot be edited.
    const first = await list(team, { limit: 5 });
    const c = first.cursor!;
    const [body, sig] = c.split('.');
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...decoded, i: 'zzz' })).toString('base64url')}.${sig}`;
    for (const bad of [forged, `${body}.AAAA${sig.slice(4)}`, 'garbage', `${c}x`]) {
      await expect(rejection(list(team, { cursor: bad }))).resolves.toMatchObject({
        code: ErrorCode.BAD_REQUEST,
        details: { field: 'cursor' },
      });
    }
    await expect(rejection(list(randomUUID(), { cursor: c }))).resolves.toMatchObject({
      code: ErrorCode.BAD_REQUEST,
    });
    await expect(rejection(list(team, { cursor: c, endpoint: 'crawl' }))).resolves.toMatchObject({
      code: ErrorCode.BAD_REQUEST,
    });
  });

  it('lists only the window, and stores no target for zero-data-retention calls', async () => {
    const team = randomUUID();
    await recorder.record(event(team, { createdAt: Date.now() - 2 * DAY }));
    const zdr = event(team, { target: null });
    await recorder.record(zdr);
    await until(async () => (await count(team)) === 2);
    const page = await list(team);
    expect(page.data).toEqual([expect.objectContaining({ id: zdr.id, target: null })]);
  });

  it('counts credits per month and API key, page usage of a job for the key that started it', async () => {
    const { team, block } = await teamWithBlock(100);
    const job = randomUUID();
    const early = randomUUID();
    // Pages of `early` are reported before its activity event arrives; those of `job` after.
    await recorder.record(event(team, { id: job, endpoint: 'crawl', apiKey: 'keyaaaaaaaaa', credits: 0 }));
    await until(async () => (await count(team)) === 1);
    await client.request(RPC.creditsUsageReport, {
      reservationId: block.reservationId,
      usage: [
        { key: 'req:1', amount: 3, endpoint: 'scrape', apiKey: 'keybbbbbbbbb' },
        { key: `crawl:${job}:p1`, amount: 2, endpoint: 'crawl' },
        { key: `crawl:${job}:p2`, amount: 2, endpoint: 'crawl' },
        { key: `batch:${early}:p1`, amount: 5, endpoint: 'batch_scrape' },
        { key: 'req:2', amount: 1, endpoint: 'map' },
      ],
    });
    await recorder.record(
      event(team, { id: early, endpoint: 'batch_scrape', apiKey: 'keybbbbbbbbb', credits: 0 }),
    );
    await until(async () => (await count(team)) === 2);
    const byKey = await client.request(RPC.usageHistorical, { teamId: team, byApiKey: true });
    const credits = Object.fromEntries(byKey.periods.map((p) => [p.apiKey ?? '-', p.creditsUsed]));
    expect(credits).toEqual({ '-': 1, 'wds_keyaaaaaaaaa_********': 4, 'wds_keybbbbbbbbb_********': 8 });
    const total = await client.request(RPC.usageHistorical, { teamId: team, byApiKey: false });
    expect(total.periods).toHaveLength(1);
    const now = new Date();
    expect(total.periods[0]).toMatchObject({
      creditsUsed: 13,
      startDate: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    });
    const current = await client.request(RPC.usageCurrent, { teamId: team });
    expect(current).toMatchObject({ remainingCredits: 5_000 - 13, planCredits: 5_000 });
  });

  it('attributes page usage reported while the activity event of its job is being recorded', async () => {
    const { team, block } = await teamWithBlock(1_000);
    // The event and the page usage of each job race (as a crawl's first pages and its activity
    // event do): whichever commits second must still find the other's rows.
    const jobs = Array.from({ length: 60 }, () => randomUUID());
    await Promise.all(
      jobs.flatMap((job, i) => [
        recorder.record(event(team, { id: job, endpoint: 'crawl', apiKey: 'keyaaaaaaaaa', credits: 0 })),
        client.request(RPC.creditsUsageReport, {
          reservationId: block.reservationId,
          usage: [
            { key: `crawl:${job}:p1`, amount: 1, endpoint: 'crawl' },
            { key: `crawl:${jobs[(i + 1) % jobs.length]}:p2`, amount: 1, endpoint: 'crawl' },
          ],
        }),
      ]),
    );
    await until(async () => (await count(team)) === jobs.length);
    await activityCaughtUp();
    const unkeyed = await pg.query(
      'SELECT usage_key FROM billing.usage WHERE team_id = $1 AND api_key IS NULL',
      [team],
    );
    expect(unkeyed.rows).toEqual([]);
    const byKey = await client.request(RPC.usageHistorical, { teamId: team, byApiKey: true });
    const credits = Object.fromEntries(byKey.periods.map((p) => [p.apiKey ?? '-', p.creditsUsed]));
    expect(credits).toEqual({ 'wds_keyaaaaaaaaa_********': 2 * jobs.length });
  });

  it('purges activity past the retention by dropping whole days', async () => {
    const old = new Date(Date.now() - 40 * DAY).toISOString().slice(0, 10);
    await pg.query('SELECT billing.ensure_activity_partition($1::date)', [old]);
    const team = randomUUID();
    await pg.query(
      `INSERT INTO billing.activity (team_id, created_at, id, event_id, endpoint, api_version)
       VALUES ($1, $2::date + interval '1 hour', 'x', 'e', 'scrape', 'v2')`,
      [team, old],
    );
    const { ActivityMaintenance } = await import('../src/activity/activity-maintenance');
    await billing!.app.get(ActivityMaintenance).runOnce();
    expect(await count(team)).toBe(0);
    const name = `activity_${old.replace(/-/g, '')}`;
    expect((await pg.query('SELECT to_regclass($1) AS t', [`billing.${name}`])).rows[0].t).toBeNull();
  });
});
