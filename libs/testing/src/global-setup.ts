import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNats, startPostgres, type RunningServer } from '@wds/local-infra';

/**
 * Jest global setup: one real NATS (JetStream) and one real PostgreSQL for the whole run, on free
 * ports, in a throw-away directory. Skipped when TEST_NATS_URL / TEST_DATABASE_URL name external
 * servers. Every project's config runs this; only the first call starts anything.
 */
declare global {
  var __wdsTestInfra: { servers: RunningServer[]; dir: string } | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (globalThis.__wdsTestInfra || (process.env.TEST_NATS_URL && process.env.TEST_DATABASE_URL)) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-test-'));
  const servers: RunningServer[] = [];
  globalThis.__wdsTestInfra = { servers, dir };
  if (!process.env.TEST_NATS_URL) {
    const nats = await startNats({ dataDir: path.join(dir, 'nats') });
    servers.push(nats);
    process.env.TEST_NATS_URL = nats.url;
  }
  if (!process.env.TEST_DATABASE_URL) {
    const pg = await startPostgres({ dataDir: path.join(dir, 'pg'), database: 'wds_test' });
    servers.push(pg);
    process.env.TEST_DATABASE_URL = pg.url;
  }
}
