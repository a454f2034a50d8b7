import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Database } from './database';

const FILE = /^(\d{4})_([a-z0-9_-]+)\.sql$/i;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

/** Reads `NNNN_name.sql` files in version order; other files are ignored, duplicate versions refused. */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await fs.readdir(dir);
  const files: MigrationFile[] = [];
  for (const entry of entries) {
    const m = FILE.exec(entry);
    if (!m) continue;
    const sql = await fs.readFile(path.join(dir, entry), 'utf8');
    files.push({
      version: Number(m[1]),
      name: entry,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  files.sort((a, b) => a.version - b.version);
  for (let i = 1; i < files.length; i++) {
    if (files[i].version === files[i - 1].version) {
      throw new MigrationError(`duplicate migration version ${files[i].version} in ${dir}`);
    }
  }
  return files;
}

/**
 * Applies pending migrations of one service schema, each in its own transaction, recorded in
 * "<schema>".schema_migrations. A transaction-scoped advisory lock keyed on the schema makes
 * replicas starting together apply each file exactly once. Editing an applied file is refused:
 * add a new migration instead. Returns the names applied by this call.
 */
export async function runMigrations(db: Database, opts: { schema: string; dir: string }): Promise<string[]> {
  const { schema } = opts;
  if (!SCHEMA_NAME.test(schema)) throw new MigrationError(`invalid schema name "${schema}"`);
  const files = await readMigrations(opts.dir);
  const lockKey = `wds.migrations.${schema}`;
  const applied: string[] = [];

  await db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    await q.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await q.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  });

  for (const file of files) {
    await db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
      const { rows } = await q.query<{ name: string; checksum: string }>(
        `SELECT name, checksum FROM "${schema}".schema_migrations WHERE version = $1`,
        [file.version],
      );
      if (rows.length) {
        if (rows[0].checksum !== file.checksum) {
          throw new MigrationError(
            `migration ${file.name} of schema "${schema}" changed after it was applied (checksum mismatch); add a new migration instead`,
          );
        }
        return;
      }
      await q.query(`SET LOCAL search_path TO "${schema}", public`);
      await q.query(file.sql);
      await q.query(
        `INSERT INTO "${schema}".schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`,
        [file.version, file.name, file.checksum],
      );
      applied.push(file.name);
    });
  }
  return applied;
}
