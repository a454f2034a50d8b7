import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { freePort, startPostgres, type RunningServer } from '@wds/local-infra';
import { DATABASE_RETRY_AFTER_SECONDS, Database } from '../src';

/**
 * A server that is away (stopped, killed, restarting) surfaces as SERVICE_UNAVAILABLE with a
 * Retry-After (a 503 at the gateway), not as a raw driver error (a 500); a statement that is wrong
 * keeps its own error; and the pool works again once the server is back, without a restart.
 */
describe('Database while PostgreSQL is away (real PostgreSQL)', () => {
  let dir: string;
  let port: number;
  let pg: RunningServer | undefined;
  let db: Database;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-db-away-'));
    port = await freePort();
    pg = await startPostgres({ dataDir: path.join(dir, 'data'), port });
    db = new Database({ url: pg.url, max: 2, connectTimeoutMs: 2000 });
  }, 60_000);

  afterAll(async () => {
    await db?.close();
    await pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const unavailable = expect.objectContaining({
    code: ErrorCode.SERVICE_UNAVAILABLE,
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });

  it('maps lost and refused connections to SERVICE_UNAVAILABLE, and recovers', async () => {
    await expect(db.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    // A statement that fails keeps its SQLSTATE.
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });

    const url = pg!.url;
    await pg!.stop();
    pg = undefined;
    const query = await db.query('SELECT 1').catch((e: unknown) => e);
    expect(query).toBeInstanceOf(ServiceError);
    expect(query).toEqual(unavailable);
    const tx = await db.tx((q) => q.query('SELECT 1')).catch((e: unknown) => e);
    expect(tx).toEqual(unavailable);

    pg = await startPostgres({ dataDir: path.join(dir, 'data'), port });
    expect(pg.url).toBe(url);
    await expect(db.query('SELECT 2 AS two')).resolves.toMatchObject({ rows: [{ two: 2 }] });
  }, 60_000);
});
