import path from 'node:path';
import { Database, runMigrations } from '@wds/database';
import { jobTablesUpgradeSuite, type UpgradeDatabase } from '@wds/testing';

// Upgrading a database of the previous release (its own 0002 copy of the job tables) to the
// shared job DDL of libs/jobs/sql; the suite is shared with the other job service.
jobTablesUpgradeSuite({
  openDatabase: (url) => new Database({ url }),
  runMigrations: (db: UpgradeDatabase, opts) => runMigrations(db as Database, opts),
  app: 'batch',
  jobKind: 'batch',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  fixturesDir: path.join(__dirname, 'fixtures'),
  legacyFixture: 'legacy-0002_batch_jobs.sql',
  ownMigrations: ['0009_agent_log.sql'],
});
