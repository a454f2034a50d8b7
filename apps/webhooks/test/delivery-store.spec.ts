import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { JobEvent } from '@wds/contracts';
import { Database, runMigrations } from '@wds/database';
import { createTestDatabase } from '@wds/testing';
import { planDelivery } from '../src/delivery/delivery-plan';
import { PgDeliveryStore } from '../src/delivery/delivery-store';

/** The outbox's claim rules against real PostgreSQL: leases, phase order, destination caps, SKIP LOCKED. */
describe('PgDeliveryStore', () => {
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Database;
  let store: PgDeliveryStore;
  const claimAll = (instance: string, leaseMs = 60_000, perDestination = 100) =>
    store.claim({ limit: 100, perDestination, leaseMs, instance });

  beforeAll(async () => {
    testDb = await createTestDatabase('webhooksstore');
    db = new Database({ url: testDb.url });
    await runMigrations(db, { schema: 'webhooks', dir: path.join(__dirname, '..', 'migrations') });
    store = new PgDeliveryStore(db);
  });

  beforeEach(async () => {
    await db.query('TRUNCATE webhooks.deliveries CASCADE');
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  function event(jobId: string, type: JobEvent['type'], url = 'https://hooks.example.com/x'): JobEvent {
    return {
      success: true,
      type,
      id: jobId,
      webhookId: randomUUID(),
      data: [],
      teamId: 't',
      webhook: { url },
    };
  }
  const insert = (e: JobEvent, settleMs = 0) => store.insert(planDelivery(e)!, settleMs);

  it('records a webhookId once', async () => {
    const e = event(randomUUID(), 'crawl.started');
    expect(await insert(e)).toBe(true);
    expect(await insert(e)).toBe(false);
    expect((await claimAll('a')).map((d) => d.webhookId)).toEqual([e.webhookId]);
  });

  it('holds pages behind a pending started and completed behind pending pages', async () => {
    const job = randomUUID();
    const started = event(job, 'crawl.started');
    const pages = [event(job, 'crawl.page'), event(job, 'crawl.page')];
    const done = event(job, 'crawl.completed');
    for (const e of [done, ...pages, started]) await insert(e);
    const attempt = { startedAt: new Date(), statusCode: 500, error: 'x', durationMs: 1 };

    expect((await claimAll('a')).map((d) => d.webhookId)).toEqual([started.webhookId]);
    // A retry keeps started pending: still nothing else of the job is claimable.
    await store.recordAttempt(started.webhookId, 'a', attempt, { kind: 'retry', delayMs: 0 });
    expect((await claimAll('a')).map((d) => d.webhookId)).toEqual([started.webhookId]);
    await store.recordAttempt(
      started.webhookId,
      'a',
      { ...attempt, statusCode: 200, error: null },
      { kind: 'delivered' },
    );

    const claimedPages = await claimAll('a');
    expect(new Set(claimedPages.map((d) => d.webhookId))).toEqual(new Set(pages.map((p) => p.webhookId)));
    await store.recordAttempt(pages[0].webhookId, 'a', attempt, { kind: 'failed', reason: 'gave up' });
    expect(await claimAll('a')).toEqual([]);
    await store.recordAttempt(pages[1].webhookId, 'a', attempt, { kind: 'delivered' });
    expect((await claimAll('a')).map((d) => d.webhookId)).toEqual([done.webhookId]);
  });

  it('lets another replica take over an expired lease and ignores the old owner afterwards', async () => {
    const e = event(randomUUID(), 'batch_scrape.page');
    await insert(e);
    expect(await claimAll('dead', 100)).toHaveLength(1);
    expect(await claimAll('b')).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    const [taken] = await claimAll('b');
    expect(taken.webhookId).toBe(e.webhookId);
    const attempt = { startedAt: new Date(), statusCode: 200, error: null, durationMs: 1 };
    expect(await store.recordAttempt(e.webhookId, 'dead', attempt, { kind: 'delivered' })).toBe(false);
    expect(await store.recordAttempt(e.webhookId, 'b', attempt, { kind: 'delivered' })).toBe(true);
    const { deliveries } = await store.list('t', e.id, 10);
    expect(deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('caps leases per destination and never hands one delivery to two concurrent claims', async () => {
    for (let i = 0; i < 10; i++) await insert(event(randomUUID(), 'crawl.page', 'https://slow.example/x'));
    for (let i = 0; i < 10; i++)
      await insert(event(randomUUID(), 'crawl.page', `https://other${i}.example/x`));
    const claims = await Promise.all(['a', 'b', 'c', 'd'].map((i) => claimAll(i, 60_000, 3)));
    const ids = claims.flat().map((d) => d.webhookId);
    expect(new Set(ids).size).toBe(ids.length);
    const slow = claims.flat().filter((d) => d.url.startsWith('https://slow.example'));
    expect(slow).toHaveLength(3);
    expect(claims.flat().length - slow.length).toBe(10);
    expect((await claimAll('e', 60_000, 3)).filter((d) => d.url.startsWith('https://slow.example'))).toEqual(
      [],
    );
  });

  it('does not let an older backlog for one destination crowd out the others', async () => {
    for (let i = 0; i < 50; i++) await insert(event(randomUUID(), 'crawl.started', 'https://dead.example/x'));
    await insert(event(randomUUID(), 'crawl.started', 'https://alive.example/x'));
    await insert(event(randomUUID(), 'crawl.started', 'https://alive2.example/x'));
    const claimed = await store.claim({ limit: 5, perDestination: 3, leaseMs: 60_000, instance: 'a' });
    expect(claimed.map((d) => new URL(d.url).hostname).sort()).toEqual([
      'alive.example',
      'alive2.example',
      'dead.example',
      'dead.example',
      'dead.example',
    ]);
  });

  it('delays completed events and orphan pages by the settle time', async () => {
    const job = randomUUID();
    await insert(event(job, 'crawl.completed'), 200);
    await insert(event(job, 'crawl.page'), 200);
    expect(await claimAll('a')).toEqual([]);
    await new Promise((r) => setTimeout(r, 250));
    expect((await claimAll('a')).map((d) => d.type)).toEqual(['crawl.page']);
  });
});
