import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, runMigrations } from '@wds/database';
import { createTestDatabase } from '@wds/testing';

const APP = 'batch';
const LEGACY = 'legacy-0002_batch_jobs.sql';
const MIGRATIONS = path.resolve(__dirname, '..', 'migrations');

/** The columns, indexes and constraints of a schema, comparable across databases. */
async function shape(db: Database, schema: string): Promise<string[]> {
  const cols = await db.query<{ s: string }>(
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS s
     FROM information_schema.columns WHERE table_schema = $1 AND table_name <> 'schema_migrations'`,
    [schema],
  );
  const idx = await db.query<{ s: string }>(
    `SELECT indexdef AS s FROM pg_indexes WHERE schemaname = $1 AND tablename <> 'schema_migrations'`,
    [schema],
  );
  const cons = await db.query<{ s: string }>(
    `SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) AS s FROM pg_constraint
     WHERE connamespace = $1::regnamespace`,
    [schema],
  );
  return [...cols.rows, ...idx.rows, ...cons.rows].map((r) => r.s).sort();
}

/**
 * The job tables come from libs/jobs/sql (linked into migrations/ as 0003-0006). A database
 * migrated by an earlier release ran this app's own 0002 copy of them: upgrading it must apply
 * only the new files, keep its rows, and end in the same shape as a fresh database.
 */
describe(`${APP} migrations`, () => {
  let fresh: { url: string; drop: () => Promise<void> };
  let legacy: { url: string; drop: () => Promise<void> };
  let dir: string;

  beforeAll(async () => {
    fresh = await createTestDatabase(`${APP}mf`);
    legacy = await createTestDatabase(`${APP}ml`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `wds-${APP}-legacy-`));
    fs.copyFileSync(path.join(MIGRATIONS, '0001_init.sql'), path.join(dir, '0001_init.sql'));
    fs.copyFileSync(path.join(__dirname, 'fixtures', LEGACY), path.join(dir, LEGACY.replace('legacy-', '')));
  });

  afterAll(async () => {
    await fresh?.drop();
    await legacy?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('upgrades a database of the previous release without re-running its tables, keeping its jobs', async () => {
    const old = new Database({ url: legacy.url });
    const db = new Database({ url: fresh.url });
    try {
      expect(await runMigrations(old, { schema: APP, dir })).toEqual([
        '0001_init.sql',
        LEGACY.replace('legacy-', ''),
      ]);
      const id = randomUUID();
      await old.query(
        `INSERT INTO ${APP}.jobs (id, team_id, kind, url, options, page_limit, concurrency, expires_at)
         VALUES ($1, 't', 'batch', 'http://x.test/', '{}', 10, 2, now() + interval '1 day')`,
        [id],
      );
      expect(await runMigrations(old, { schema: APP, dir: MIGRATIONS })).toEqual([
        '0003_job_tables.sql',
        '0004_team_slots.sql',
        '0005_job_reopen.sql',
        '0006_page_finish.sql',
      ]);
      expect(await runMigrations(old, { schema: APP, dir: MIGRATIONS })).toEqual([]);
      const { rows } = await old.query<{ reopened: number }>(
        `SELECT reopened FROM ${APP}.jobs WHERE id = $1`,
        [id],
      );
      expect(rows).toEqual([{ reopened: 0 }]);

      expect(await runMigrations(db, { schema: APP, dir: MIGRATIONS })).toEqual([
        '0001_init.sql',
        '0003_job_tables.sql',
        '0004_team_slots.sql',
        '0005_job_reopen.sql',
        '0006_page_finish.sql',
      ]);
      expect(await shape(old, APP)).toEqual(await shape(db, APP));
      expect(await shape(old, 'jobs')).toEqual(await shape(db, 'jobs'));
      expect((await shape(db, 'jobs')).length).toBeGreaterThan(0);
    } finally {
      await old.close();
      await db.close();
    }
  });
});
