import { Pool, type PoolClient, type QueryResult, type QueryResultRow } from 'pg';
import { ErrorCode, ServiceError } from '@wds/contracts';
import type { Logger } from '@wds/observability';

/** Seconds a client is asked to wait (Retry-After) while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server that is shutting down, starting, or out of connections. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended',
];

/**
 * True when `err` says the PostgreSQL server cannot be reached or is not serving (connection
 * refused or lost, shutting down, starting up, out of connections), not that the statement failed.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  // Duck-typed: errors of Node's own modules may come from another realm (`instanceof Error` fails).
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    // Class 08: connection exception.
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  // AggregateError (every address refused).
  if (Array.isArray(errors) && errors.some(isDatabaseUnavailable)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
}

/**
 * A database outage as the service error every caller understands: 503 SERVICE_UNAVAILABLE with
 * Retry-After at the gateway (directly or through an RPC reply), a transient failure that page
 * tasks retry. Other errors pass unchanged (constraint violations keep their SQLSTATE).
 */
export function asUnavailable(err: unknown): unknown {
  if (!isDatabaseUnavailable(err)) return err;
  const mapped = new ServiceError(
    ErrorCode.SERVICE_UNAVAILABLE,
    'The database is unavailable; try again shortly',
    undefined,
    DATABASE_RETRY_AFTER_SECONDS,
  );
  (mapped as { cause?: unknown }).cause = err;
  return mapped;
}

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
    return this.pool.query<R>(sql, params as unknown[]).catch((err: unknown) => {
      throw asUnavailable(err);
    });
  }

  /**
   * Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it
   * throws. A lost or refused connection surfaces as SERVICE_UNAVAILABLE (see `asUnavailable`).
   */
  async tx<T>(fn: (q: Queryable) => Promise<T>, opts: { isolation?: Isolation } = {}): Promise<T> {
    try {
      return await this.txOnce(fn, opts);
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  private async txOnce<T>(fn: (q: Queryable) => Promise<T>, opts: { isolation?: Isolation }): Promise<T> {
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
