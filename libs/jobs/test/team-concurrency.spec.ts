import { randomUUID } from 'node:crypto';
import { startTwoServices, type TwoServices } from './support/two-services';

/**
 * The team limit across a team's jobs in different services (a crawl-kind and a batch-kind job,
 * each in its own schema and process-like service with its own NATS connection), with real
 * JetStream page tasks and PostgreSQL. No watchdog runs unless a test starts one, so progress of
 * a held-back job comes from wake-ups alone.
 */
describe('team concurrency across jobs and services', () => {
  let t: TwoServices;
  const statusOf = async (svc: 'crawl' | 'batch', id: string) => (await t[svc].store.get(id))?.status;

  beforeAll(async () => {
    t = await startTwoServices();
  }, 60_000);

  afterAll(async () => {
    await t?.stop();
  }, 30_000);

  it('keeps two jobs of one team within the team limit together, and serves the later one in turn', async () => {
    const team = `team-${randomUUID()}`;
    const big = await t.crawl.startJob('big', team, 12);
    await t.waitFor('the big job to fill the team limit', async () => t.site.inflightOf(team) === 2);
    const small = await t.batch.startJob('small', team, 4);

    await t.waitFor('both jobs to complete', async () =>
      (await statusOf('crawl', big)) === 'completed' && (await statusOf('batch', small)) === 'completed'
        ? true
        : undefined,
    );
    expect(t.site.maxInflight.get(team)).toBe(2);
    const fetches = t.site.fetches.filter((f) => f.job === 'big' || f.job === 'small');
    expect(fetches.filter((f) => f.job === 'big')).toHaveLength(12);
    expect(fetches.filter((f) => f.job === 'small')).toHaveLength(4);
    // Pages in flight at each page start, from the fetch log itself.
    for (const f of fetches) {
      const overlapping = fetches.filter((g) => g.start <= f.start && (g.end ?? Infinity) > f.start);
      expect(overlapping.length).toBeLessThanOrEqual(2);
    }
    // Round robin: while the small job waited, freed slots alternated between the jobs. Greedy
    // reuse by the big job would have started all its pages before the small one's.
    const lastSmallStart = Math.max(...fetches.filter((f) => f.job === 'small').map((f) => f.start));
    const bigAfter = fetches.filter((f) => f.job === 'big' && f.start > lastSmallStart).length;
    expect(bigAfter).toBeGreaterThanOrEqual(3);
    const bigDone = await t.crawl.store.get(big);
    const smallDone = await t.batch.store.get(small);
    expect(smallDone!.succeeded).toBe(4);
    expect(bigDone!.succeeded).toBe(12);
    const { rows } = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM jobs.team_jobs WHERE team_id = $1',
      [team],
    );
    expect(rows[0].n).toBe(0);
  }, 60_000);

  it('gives a job its own limit when its team has nothing else running', async () => {
    const team = `team-${randomUUID()}`;
    const id = await t.batch.startJob('solo', team, 6, { concurrency: 3, teamConcurrency: 5 });
    await t.waitFor('the job to complete', async () => (await statusOf('batch', id)) === 'completed');
    expect(t.site.maxInflight.get(team)).toBe(3);
  }, 30_000);

  it('returns the slots of a job whose service is gone once its lease runs out', async () => {
    const team = `team-${randomUUID()}`;
    const dead = await t.deadStore(1500);
    const ghost = randomUUID();
    await dead.store.create({
      id: ghost,
      teamId: team,
      kind: 'crawl',
      url: 'http://pages.test/ghost/0',
      options: {},
      pageLimit: 10,
      concurrency: 2,
      delayMs: 0,
      zeroDataRetention: false,
      retentionMs: 3_600_000,
      teamConcurrency: 2,
    });
    const claimed = await dead.store.addPages(
      ghost,
      [0, 1, 2].map((i) => ({ urlKey: `g${i}`, url: `http://pages.test/ghost/${i}`, depth: 0 })),
      { seeded: true },
    );
    expect(claimed.dispatch).toHaveLength(2);
    // Its tasks reach no runner that knows the job: its two slots stay taken until the lease ends.
    await dead.dispatcher.publish(claimed.dispatch);
    const heldAt = Date.now();
    t.batch.startWatchdog(200);
    const waiting = await t.batch.startJob('waiting', team, 2);
    expect(t.site.fetches.some((f) => f.job === 'waiting')).toBe(false);
    await t.waitFor(
      'the waiting job to complete',
      async () => (await statusOf('batch', waiting)) === 'completed',
    );
    const firstStart = Math.min(...t.site.fetches.filter((f) => f.job === 'waiting').map((f) => f.start));
    expect(firstStart - heldAt).toBeGreaterThanOrEqual(1400);
  }, 30_000);

  it('reopens a completed job that takes new pages, with a new completed event', async () => {
    const team = `team-${randomUUID()}`;
    const id = await t.batch.startJob('reopen', team, 1);
    await t.waitFor('the first round', async () => (await statusOf('batch', id)) === 'completed');
    const again = await t.batch.store.addPages(
      id,
      [1, 2].map((i) => ({ urlKey: `r${i}`, url: `http://pages.test/reopen/${i}`, depth: 0 })),
      { reopen: { retentionMs: 3_600_000 } },
    );
    expect(again).toMatchObject({ inserted: 2, reopened: true, job: { status: 'scraping', reopened: 1 } });
    await t.batch.dispatcher.publish(again.dispatch);
    await t.waitFor('the second round', async () => (await statusOf('batch', id)) === 'completed');
    expect(await t.batch.store.get(id)).toMatchObject({ succeeded: 3, discovered: 3, reopened: 1 });

    // Nothing new: a completed job stays completed.
    const none = await t.batch.store.addPages(
      id,
      [{ urlKey: 'r1', url: 'http://pages.test/reopen/1', depth: 0 }],
      {
        reopen: { retentionMs: 3_600_000 },
      },
    );
    expect(none).toEqual({ inserted: 0, dispatch: [] });
    // Without `reopen` (a crawl's links) an ended job takes nothing.
    const refused = await t.batch.store.addPages(id, [
      { urlKey: 'r9', url: 'http://pages.test/reopen/9', depth: 0 },
    ]);
    expect(refused.inserted).toBe(0);

    const lifecycle = await t.waitFor('two completed events', async () => {
      const mine = t.events.filter((e) => e.id === id && e.type === 'batch_scrape.completed');
      return mine.length === 2 ? mine : undefined;
    });
    expect(new Set(lifecycle.map((e) => e.webhookId)).size).toBe(2);
    expect(t.events.filter((e) => e.id === id && e.type === 'batch_scrape.page')).toHaveLength(3);
  }, 30_000);
});
