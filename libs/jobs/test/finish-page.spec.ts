import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, runMigrations } from '@wds/database';
import { createTestDatabase } from '@wds/testing';
import { JobStore, PageFinisher, type NewJob, type WakeTarget } from '../src';
import { MIGRATIONS, SQL_DIR } from './support/two-services';

const SCHEMA = 'svc_finish';

/**
 * JobStore.finishPage runs as one SQL function (sql/page-finish.sql): its guarantees, checked on
 * the database alone (no runners), including the team-gate paths a page finish takes.
 */
describe('JobStore.finishPage', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let store: JobStore;
  const woken: WakeTarget[][] = [];

  beforeAll(async () => {
    const testDb = await createTestDatabase('jobs_finish');
    drop = testDb.drop;
    db = new Database({ url: testDb.url, max: 4 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-jobs-finish-'));
    MIGRATIONS.forEach((f, i) =>
      fs.symlinkSync(path.join(SQL_DIR, f), path.join(dir, `000${i + 1}_${f.replace('-', '_')}`)),
    );
    await runMigrations(db, { schema: SCHEMA, dir });
    store = new JobStore(db, SCHEMA, { teamWaker: { wake: (t) => woken.push([...t]) } });
  }, 30_000);

  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const page = (key: string, depth = 0) => ({ urlKey: key, url: `http://site.test/${key}`, depth });
  const done = (credits = 1) => ({ kind: 'done' as const, documentJson: '{"markdown":"é"}', credits });

  const waitingOf = async (ids: string[]) => (await store.teamWaiting()).filter((w) => ids.includes(w));

  async function startJob(extra: Partial<NewJob>, pages: string[]): Promise<string> {
    const id = randomUUID();
    await store.create({
      id,
      teamId: `team-${randomUUID()}`,
      kind: 'crawl',
      url: 'http://site.test/',
      options: {},
      pageLimit: 10,
      concurrency: 2,
      delayMs: 0,
      zeroDataRetention: false,
      retentionMs: 3_600_000,
      ...extra,
    });
    await store.addPages(
      id,
      pages.map((k) => page(k)),
      { seeded: true },
    );
    return id;
  }

  it('records a page once, adds its links within the page limit, and claims the next pages', async () => {
    const id = await startJob({ pageLimit: 4, concurrency: 2, teamConcurrency: 5 }, ['a']);
    const links = ['a', 'b', 'c', 'd', 'e'].map((k) => page(k, 1));
    const first = await store.finishPage(id, 'a', done(3), links, [
      'http://site.test/x',
      'http://site.test/x',
    ]);
    expect(first).toMatchObject({ applied: true, seq: 1, finished: undefined });
    // Room for three more pages: the known key `a` is skipped, `e` is past the limit.
    const claimed = [...first.dispatch].sort((x, y) => x.urlKey.localeCompare(y.urlKey));
    expect(claimed.map((p) => p.urlKey)).toEqual(['b', 'c']);
    expect(claimed[0]).toMatchObject({ jobId: id, url: 'http://site.test/b', depth: 1 });
    expect(claimed[0].teamId).toMatch(/^team-/);
    const again = await store.finishPage(id, 'a', done(3), [page('z')]);
    expect(again).toEqual({ applied: false, dispatch: [] });

    const job = await store.get(id);
    expect(job).toMatchObject({ discovered: 4, succeeded: 1, failed: 0, inflight: 2, creditsUsed: 3 });
    const { rows } = await db.query(
      `SELECT url_key, status, done_seq, doc_bytes FROM ${SCHEMA}.job_pages WHERE job_id = $1 ORDER BY url_key`,
      [id],
    );
    expect(rows).toEqual([
      { url_key: 'a', status: 'done', done_seq: 1, doc_bytes: 17 },
      { url_key: 'b', status: 'dispatched', done_seq: null, doc_bytes: null },
      { url_key: 'c', status: 'dispatched', done_seq: null, doc_bytes: null },
      { url_key: 'd', status: 'queued', done_seq: null, doc_bytes: null },
    ]);
    expect((await store.errors(id)).blocked).toEqual(['http://site.test/x']);
    const team = await db.query('SELECT inflight FROM jobs.team_jobs WHERE job_id = $1', [id]);
    expect(team.rows).toEqual([{ inflight: 2 }]);
  });

  it('completes the job with its last page and hands its team slots to a waiting job', async () => {
    const teamId = `team-${randomUUID()}`;
    const first = await startJob({ teamId, concurrency: 1, teamConcurrency: 1 }, ['p']);
    const second = await startJob({ teamId, concurrency: 1, teamConcurrency: 1 }, ['q']);
    expect(await waitingOf([first, second])).toEqual([second]);
    woken.length = 0;

    const failed = await store.finishPage(first, 'p', {
      kind: 'failed',
      error: 'boom',
      code: 'SCRAPE_FAILED',
      credits: 0,
    });
    expect(failed).toMatchObject({ applied: true, dispatch: [], finished: 'completed', seq: undefined });
    expect(failed.job).toMatchObject({ id: first, status: 'completed', failed: 1, inflight: 0, teamId });
    expect(woken).toEqual([[{ jobId: second, kind: 'crawl' }]]);
    const gone = await db.query('SELECT 1 FROM jobs.team_jobs WHERE job_id = $1', [first]);
    expect(gone.rowCount).toBe(0);
    expect((await store.errors(first)).pages).toMatchObject([{ error: 'boom', code: 'SCRAPE_FAILED' }]);
  });

  it('counts a page that finished after its job ended: its credits, result and counter, once', async () => {
    const id = await startJob({ concurrency: 2 }, ['a', 'b']);
    await store.finishPage(id, 'a', done(2));
    // Cancelled while `b` is in flight: end() marks it cancelled, so the regular finish skips it ...
    expect(await store.end(id, 'cancelled')).toBe(true);
    expect(await store.finishPage(id, 'b', done(5))).toMatchObject({ applied: false });
    expect(await store.get(id)).toMatchObject({ creditsUsed: 2, succeeded: 1 });
    // ... and finishLate records what it cost and produced (billing has it on record).
    expect(await store.finishLate(id, 'b', done(5))).toBe(true);
    expect(await store.get(id)).toMatchObject({ status: 'cancelled', creditsUsed: 7, succeeded: 2 });
    expect(
      (await store.readDocuments(id, { skip: 0, limit: 10, maxBytes: 1e6, inlineMax: 1e6 })).map(
        (d) => d.seq,
      ),
    ).toEqual([1, 2]);
    // Once: a second late finish (a redelivery) changes nothing.
    expect(await store.finishLate(id, 'b', done(5))).toBe(false);
    expect((await store.get(id))?.creditsUsed).toBe(7);

    // A failed work unit keeps what it cost and its record (an agent run's steps and tokens).
    const other = await startJob({ concurrency: 1 }, ['c']);
    const failed = { kind: 'failed' as const, error: 'stopped', code: 'UPSTREAM_FAILED', credits: 3 };
    // Not while its job runs: the regular finish does that.
    expect(await store.finishLate(other, 'c', failed)).toBe(false);
    expect(await store.end(other, 'failed', 'Insufficient credits to continue the job')).toBe(true);
    expect(await store.finishLate(other, 'c', { ...failed, documentJson: '{"tokensUsed":40}' })).toBe(true);
    expect(await store.get(other)).toMatchObject({ status: 'failed', creditsUsed: 3, failed: 1 });
    expect(await store.finishedPage(other, 'c')).toMatchObject({
      status: 'failed',
      document: '{"tokensUsed":40}',
      error: 'stopped',
    });
  });

  it('keeps a page whose work still runs out of the redispatch (touchDispatched)', async () => {
    const id = await startJob({ concurrency: 1 }, ['w']);
    const age = () =>
      db.query(`UPDATE ${SCHEMA}.job_pages SET dispatched_at = now() - interval '1 hour' WHERE job_id = $1`, [
        id,
      ]);
    await age();
    const stalled = async () =>
      (await store.stalledDispatches(60_000, 1000)).filter((p) => p.jobId === id).map((p) => p.urlKey);
    // stalledDispatches marks what it returns as dispatched again: age the page before each look.
    expect(await stalled()).toEqual(['w']);
    await age();
    await store.touchDispatched(id, 'w');
    expect(await stalled()).toEqual([]);
  });

  it('keeps a freed slot for the longest waiter rather than the job that freed it', async () => {
    const teamId = `team-${randomUUID()}`;
    const big = await startJob({ teamId, concurrency: 1, teamConcurrency: 1 }, ['b1', 'b2']);
    const small = await startJob({ teamId, concurrency: 1, teamConcurrency: 1 }, ['s1']);
    woken.length = 0;

    const outcome = await store.finishPage(big, 'b1', done());
    expect(outcome.dispatch).toEqual([]);
    expect(woken).toEqual([[{ jobId: small, kind: 'crawl' }]]);
    expect(await waitingOf([big, small])).toEqual([small, big]);
    expect((await store.claim(small)).dispatch.map((p) => p.urlKey)).toEqual(['s1']);
  });

  describe('finishPages (several pages of a job in one call)', () => {
    const failed = (error: string) => ({ kind: 'failed' as const, error, code: 'SCRAPE_FAILED', credits: 0 });
    const pagesOf = async (id: string) =>
      (
        await db.query<{ url_key: string; status: string; done_seq: number | null; depth: number }>(
          `SELECT url_key, status, done_seq, depth FROM ${SCHEMA}.job_pages WHERE job_id = $1 ORDER BY url_key`,
          [id],
        )
      ).rows;

    it('does what the calls one by one would: seq, links in order within the limit, repeats ignored', async () => {
      const id = await startJob({ pageLimit: 6, concurrency: 3, teamConcurrency: 10 }, ['a', 'b', 'c']);
      const outcomes = await store.finishPages(id, [
        { urlKey: 'a', result: done(2), discovered: ['b', 'd', 'e'].map((k) => page(k, 1)) },
        // The same page again (a redelivery in the same batch): nothing of it counts.
        { urlKey: 'a', result: done(7), discovered: [page('z', 1)], blocked: ['http://site.test/never'] },
        // `d` repeats a link of `a`: it must not take one of the three free places.
        { urlKey: 'b', result: failed('bo\u0000om'), discovered: ['d', 'f'].map((k) => page(k, 1)) },
        { urlKey: 'c', result: done(3), discovered: [page('h', 1)], blocked: ['http://site.test/x'] },
      ]);
      expect(outcomes.map((o) => [o.applied, o.seq])).toEqual([
        [true, 1],
        [false, undefined],
        [true, undefined],
        [true, 2],
      ]);
      // The batch's claim goes with its last applied page.
      expect(outcomes.slice(0, 3).every((o) => o.dispatch.length === 0)).toBe(true);
      expect(outcomes[3].dispatch.map((p) => p.urlKey).sort()).toEqual(['d', 'e', 'f']);
      expect(outcomes[3].finished).toBeUndefined();
      expect(await pagesOf(id)).toEqual([
        { url_key: 'a', status: 'done', done_seq: 1, depth: 0 },
        { url_key: 'b', status: 'failed', done_seq: null, depth: 0 },
        { url_key: 'c', status: 'done', done_seq: 2, depth: 0 },
        { url_key: 'd', status: 'dispatched', done_seq: null, depth: 1 },
        { url_key: 'e', status: 'dispatched', done_seq: null, depth: 1 },
        { url_key: 'f', status: 'dispatched', done_seq: null, depth: 1 },
      ]);
      expect(await store.get(id)).toMatchObject({
        discovered: 6,
        succeeded: 2,
        failed: 1,
        inflight: 3,
        creditsUsed: 5,
      });
      const errors = await store.errors(id);
      expect(errors.blocked).toEqual(['http://site.test/x']);
      // A NUL (which PostgreSQL text cannot hold) is dropped from an error message.
      expect(errors.pages).toMatchObject([{ error: 'boom', code: 'SCRAPE_FAILED' }]);

      // The rest in one batch completes the job; the completion goes with the last page.
      const last = await store.finishPages(id, [
        { urlKey: 'f', result: done() },
        { urlKey: 'd', result: done() },
        { urlKey: 'e', result: done() },
      ]);
      expect(last.map((o) => o.seq)).toEqual([3, 4, 5]);
      expect(last.map((o) => o.finished)).toEqual([undefined, undefined, 'completed']);
      expect(last[2].job).toMatchObject({ id, status: 'completed', succeeded: 5, failed: 1, inflight: 0 });
      const slots = await db.query('SELECT 1 FROM jobs.team_jobs WHERE job_id = $1', [id]);
      expect(slots.rowCount).toBe(0);
    });

    it('PageFinisher batches the pages of a job that finish together; a page the database refuses fails alone', async () => {
      const id = await startJob({ pageLimit: 10, concurrency: 4, teamConcurrency: 10 }, [
        'p1',
        'p2',
        'p3',
        'p4',
      ]);
      const calls: number[] = [];
      const spying = Object.create(store) as JobStore;
      spying.finishPages = (jobId, pages) => {
        calls.push(pages.length);
        return store.finishPages(jobId, pages);
      };
      const finisher = new PageFinisher(spying);
      const results = await Promise.allSettled([
        finisher.finish(id, { urlKey: 'p1', result: done() }),
        finisher.finish(id, { urlKey: 'p2', result: done() }),
        // PostgreSQL refuses a NUL character in text: this page's write fails, the others' must not.
        finisher.finish(id, { urlKey: 'p3\u0000', result: done() }),
        finisher.finish(id, { urlKey: 'p4', result: done() }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      // One call for the four, then each page alone.
      expect(calls).toEqual([4, 1, 1, 1, 1]);
      expect((await pagesOf(id)).map((p) => [p.url_key, p.status])).toEqual([
        ['p1', 'done'],
        ['p2', 'done'],
        ['p3', 'dispatched'],
        ['p4', 'done'],
      ]);
      expect(finisher.activeJobs).toBe(0);
    });
  });
});
