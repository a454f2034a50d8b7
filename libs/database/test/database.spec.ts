import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@wds/testing';
import { Database, MigrationError, runMigrations } from '../src';

describe('Database and runMigrations (real PostgreSQL)', () => {
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Database;
  let dir: string;

  beforeAll(async () => {
    testDb = await createTestDatabase('dbt');
    db = new Database({ url: testDb.url, max: 4 });
  });

  afterAll(async () => {
    await db.close();
    await testDb.drop();
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-mig-'));
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, sql: string) => fs.writeFileSync(path.join(dir, name), sql);

  it('applies migrations in order once, and a re-run applies nothing', async () => {
    write('0002_add_col.sql', 'ALTER TABLE items ADD COLUMN label text;');
    write('0001_items.sql', 'CREATE TABLE items (id int PRIMARY KEY);');
    write('README.md', 'not a migration');

    expect(await runMigrations(db, { schema: 'alpha', dir })).toEqual(['0001_items.sql', '0002_add_col.sql']);
    expect(await runMigrations(db, { schema: 'alpha', dir })).toEqual([]);

    const { rows } = await db.query<{ version: number; name: string }>(
      'SELECT version, name FROM alpha.schema_migrations ORDER BY version',
    );
    expect(rows).toEqual([
      { version: 1, name: '0001_items.sql' },
      { version: 2, name: '0002_add_col.sql' },
    ]);
    await db.query("INSERT INTO alpha.items (id, label) VALUES (1, 'x')");
  });

  it('is safe when two instances migrate the same schema concurrently', async () => {
    write('0001_counter.sql', 'CREATE TABLE counter (n int); INSERT INTO counter VALUES (1);');
    const other = new Database({ url: testDb.url, max: 2 });
    try {
      const [a, b] = await Promise.all([
        runMigrations(db, { schema: 'beta', dir }),
        runMigrations(other, { schema: 'beta', dir }),
      ]);
      expect([...a, ...b]).toEqual(['0001_counter.sql']);
      const { rows } = await db.query('SELECT count(*)::int AS n FROM beta.counter');
      expect(rows[0].n).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('refuses an applied migration whose content changed', async () => {
    write('0001_t.sql', 'CREATE TABLE t (id int);');
    await runMigrations(db, { schema: 'gamma', dir });
    write('0001_t.sql', 'CREATE TABLE t (id bigint);');
    await expect(runMigrations(db, { schema: 'gamma', dir })).rejects.toThrow(MigrationError);
    await expect(runMigrations(db, { schema: 'gamma', dir })).rejects.toThrow(/checksum/);
  });

  it('rolls back a failing migration entirely', async () => {
    write('0001_ok.sql', 'CREATE TABLE ok (id int);');
    write('0002_bad.sql', 'CREATE TABLE half (id int); SELECT no_such_function();');
    await expect(runMigrations(db, { schema: 'delta', dir })).rejects.toThrow(/no_such_function/);
    const { rows } = await db.query("SELECT to_regclass('delta.half') AS t, to_regclass('delta.ok') AS ok");
    expect(rows[0]).toEqual({ t: null, ok: 'delta.ok' });
  });

  it('rejects unsafe schema names', async () => {
    await expect(runMigrations(db, { schema: 'x"; DROP', dir })).rejects.toThrow(/invalid schema/);
  });

  it('tx commits on success and rolls back when the callback throws', async () => {
    await db.query('CREATE TABLE tx_test (id int)');
    await db.tx(async (q) => {
      await q.query('INSERT INTO tx_test VALUES (1)');
    });
    await expect(
      db.tx(async (q) => {
        await q.query('INSERT INTO tx_test VALUES (2)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await db.query('SELECT id FROM tx_test ORDER BY id');
    expect(rows).toEqual([{ id: 1 }]);
  });

  it('tx applies the requested isolation level', async () => {
    const level = await db.tx(
      async (q) => (await q.query('SHOW transaction_isolation')).rows[0].transaction_isolation,
      {
        isolation: 'serializable',
      },
    );
    expect(level).toBe('serializable');
  });

  it('ping fails when the server is unreachable', async () => {
    const dead = new Database({ url: 'postgres://wds:wds@127.0.0.1:1/none', connectTimeoutMs: 1000 });
    await expect(dead.ping()).rejects.toThrow();
    await dead.close();
  });
});
