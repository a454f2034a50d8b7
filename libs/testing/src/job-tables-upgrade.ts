import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase } from './databases';

/** The slice of @wds/database the suite needs (passed in: that lib's own tests use this one). */
export interface UpgradeDatabase {
  query(sql: string, params?: unknown[]): Promise<{ rows: object[] }>;
  close(): Promise<void>;
}

export interface JobTablesUpgradeOptions {
  openDatabase(url: string): UpgradeDatabase;
  runMigrations(db: UpgradeDatabase, opts: { schema: string; dir: string }): Promise<string[]>;
  /** The service (and its schema): `crawler`, `batch`. */
  app: string;
  /** Its job kind as stored in `jobs.kind`. */
  jobKind: string;
  /** The service's migrations directory (0001 own, 0003+ links to libs/jobs/sql). */
  migrationsDir: string;
  /** Where `legacyFixture` (the service's shipped 0002 copy of the job tables) lies. */
  fixturesDir: string;
  legacyFixture: string;
  /** The service's own migrations after the shared job tables (e.g. batch's `0009_agent_log.sql`). */
  ownMigrations?: readonly string[];
}

/** The columns, indexes and constraints of a schema, comparable across databases. */
async function rowsOf<R>(db: UpgradeDatabase, sql: string, params?: unknown[]): Promise<{ rows: R[] }> {
  return (await db.query(sql, params)) as { rows: R[] };
}

async function shape(db: UpgradeDatabase, schema: string): Promise<string[]> {
  const cols = await rowsOf<{ s: string }>(
    db,
    `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS s
     FROM information_schema.columns WHERE table_schema = $1 AND table_name <> 'schema_migrations'`,
    [schema],
  );
  const idx = await rowsOf<{ s: string }>(
    db,
    `SELECT indexdef AS s FROM pg_indexes WHERE schemaname = $1 AND tablename <> 'schema_migrations'`,
    [schema],
  );
  const cons = await rowsOf<{ s: string }>(
    db,
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
export function jobTablesUpgradeSuite(opts: JobTablesUpgradeOptions): void {
  const APP = opts.app;
  const LEGACY = opts.legacyFixture;
  const MIGRATIONS = opts.migrationsDir;
  describe(`${APP} migrations`, () => {
    let fresh: { url: string; drop: () => Promise<void> };
    let legacy: { url: string; drop: () => Promise<void> };
    let dir: string;

    beforeAll(async () => {
      fresh = await createTestDatabase(`${APP}mf`);
      legacy = await createTestDatabase(`${APP}ml`);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `wds-${APP}-legacy-`));
      fs.copyFileSync(path.join(MIGRATIONS, '0001_init.sql'), path.join(dir, '0001_init.sql'));
      fs.copyFileSync(path.join(opts.fixturesDir, LEGACY), path.join(dir, LEGACY.replace('legacy-', '')));
    });

    afterAll(async () => {
      await fresh?.drop();
      await legacy?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('upgrades a database of the previous release without re-running its tables, keeping its jobs', async () => {
      const old = opts.openDatabase(legacy.url);
      const db = opts.openDatabase(fresh.url);
      try {
        expect(await opts.runMigrations(old, { schema: APP, dir })).toEqual([
          '0001_init.sql',
          LEGACY.replace('legacy-', ''),
        ]);
        const id = randomUUID();
        await old.query(
          `INSERT INTO ${APP}.jobs (id, team_id, kind, url, options, page_limit, concurrency, expires_at)
         VALUES ($1, 't', '${opts.jobKind}', 'http://x.test/', '{}', 10, 2, now() + interval '1 day')`,
          [id],
        );
        expect(await opts.runMigrations(old, { schema: APP, dir: MIGRATIONS })).toEqual([
          '0003_job_tables.sql',
          '0004_team_slots.sql',
          '0005_job_reopen.sql',
          '0006_page_finish.sql',
          '0007_page_finish_plans.sql',
          '0008_page_finish_batch.sql',
          ...(opts.ownMigrations ?? []),
        ]);
        expect(await opts.runMigrations(old, { schema: APP, dir: MIGRATIONS })).toEqual([]);
        const { rows } = await rowsOf<{ reopened: number }>(
          old,
          `SELECT reopened FROM ${APP}.jobs WHERE id = $1`,
          [id],
        );
        expect(rows).toEqual([{ reopened: 0 }]);

        expect(await opts.runMigrations(db, { schema: APP, dir: MIGRATIONS })).toEqual([
          '0001_init.sql',
          '0003_job_tables.sql',
          '0004_team_slots.sql',
          '0005_job_reopen.sql',
          '0006_page_finish.sql',
          '0007_page_finish_plans.sql',
          '0008_page_finish_batch.sql',
          ...(opts.ownMigrations ?? []),
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
}
