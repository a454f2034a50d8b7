import path from 'node:path';
import { Database, runMigrations } from '@wds/database';
import { createTestDatabase } from '@wds/testing';
import { PgSnapshotStore } from '../../src/scrape/formats/change-tracking/snapshot-store';

/** The change-tracking snapshot store on a real PostgreSQL: ordering of concurrent swaps. */
describe('scraper: change-tracking snapshots (PostgreSQL)', () => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const t = await createTestDatabase('snapshots');
    drop = t.drop;
    db = new Database({ url: t.url, max: 16 });
    await runMigrations(db, { schema: 'scraper', dir: path.join(__dirname, '../../migrations') });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('orders concurrent swaps of one key: exactly one sees no previous snapshot, the newest is kept', async () => {
    const store = new PgSnapshotStore(db);
    const key = { teamId: 'team-a', url: 'https://example.com/p', tag: '' };
    const swaps = Array.from({ length: 12 }, (_, i) =>
      store.swap(key, {
        scrapedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        jobId: `00000000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`,
        markdown: `version ${i}`,
      }),
    );
    const previous = await Promise.all(swaps);
    // Without the lock several swaps read "no snapshot yet" before any of them wrote one.
    expect(previous.filter((p) => p === undefined)).toHaveLength(1);
    // The newest content is the snapshot kept, whatever order the swaps committed in.
    expect((await store.swap(key, undefined))!.markdown).toBe('version 11');
  });

  it('does not replace a snapshot with older content; deletes a team’s snapshots', async () => {
    const store = new PgSnapshotStore(db);
    const key = { teamId: 'team-b', url: 'https://example.com/q', tag: 'x' };
    const jobId = '00000000-0000-4000-8000-000000000001';
    await store.swap(key, { scrapedAt: new Date('2026-02-01T00:00:00Z'), jobId, markdown: 'new' });
    const prev = await store.swap(key, {
      scrapedAt: new Date('2026-01-01T00:00:00Z'),
      jobId,
      markdown: 'old',
    });
    expect(prev!.markdown).toBe('new');
    expect((await store.swap(key, undefined))!.markdown).toBe('new');
    expect(await store.deleteTeam('team-b')).toBe(1);
    expect(await store.swap(key, undefined)).toBeUndefined();
  });
});
