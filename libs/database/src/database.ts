import { Pool, type PoolClient, type QueryResult, type QueryResultRow } from 'pg';
import type { Logger } from '@wds/observability';

export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<R extends QueryResultRow = any>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
}

export type Isolation = 'read committed' | 'repeatable read' | 'serializable';

export interface DatabaseOptions {
  url: string;
  max?: number;
  applicationName?: string;
  logger?: Logger;
  /** Fails a connection attempt instead of hanging readiness probes on an unreachable server. */
  connectTimeoutMs?: number;
}

/** A pooled PostgreSQL handle: plain queries, transactions and a liveness ping. */
export class Database implements Queryable {
  private readonly pool: Pool;
  private closed = false;

  constructor(private readonly opts: DatabaseOptions) {
    this.pool = new Pool({
      connectionString: opts.url,
      max: opts.max ?? 10,
      application_name: opts.applicationName,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    // Only message and code are logged: pg attaches the client (connection parameters) to the error.
    this.pool.on('error', (err) =>
      opts.logger?.warn(
        { error: err.message, code: (err as { code?: string }).code },
        'idle PostgreSQL client failed',
      ),
    );
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<R extends QueryResultRow = any>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
    return this.pool.query<R>(sql, params as unknown[]);
  }

  /** Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  async tx<T>(fn: (q: Queryable) => Promise<T>, opts: { isolation?: Isolation } = {}): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolationSql(opts.isolation ?? 'read committed')}`);
      const result = await fn(clientQueryable(client));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        // The connection is unusable; release it destroyed rather than back into the pool.
        broken = rollbackErr as Error;
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

function isolationSql(isolation: Isolation): string {
  switch (isolation) {
    case 'read committed':
      return 'READ COMMITTED';
    case 'repeatable read':
      return 'REPEATABLE READ';
    case 'serializable':
      return 'SERIALIZABLE';
  }
}

function clientQueryable(client: PoolClient): Queryable {
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    query: <R extends QueryResultRow = any>(sql: string, params?: unknown[]) =>
      client.query<R>(sql, params as unknown[]),
  };
}
