import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * A fresh, empty database on the run's PostgreSQL, so a suite can migrate and write without
 * seeing other suites' rows. Returns its URL and a drop function for afterAll.
 */
export async function createTestDatabase(prefix = 't'): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base)
    throw new Error('TEST_DATABASE_URL is not set: run tests through jest (global setup starts PostgreSQL)');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: admin.toString() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export function testNatsUrl(): string {
  const url = process.env.TEST_NATS_URL;
  if (!url) throw new Error('TEST_NATS_URL is not set: run tests through jest (global setup starts NATS)');
  return url;
}
