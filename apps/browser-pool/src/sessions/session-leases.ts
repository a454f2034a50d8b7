import { CONCURRENCY_LEASE_TTL_MS, ErrorCode, ServiceError } from '@wds/contracts';
import type { Queryable } from '@wds/database';

/**
 * A browser session's slot of its team's request-concurrency limit: a row of the gateway's
 * concurrency machinery (gateway.concurrency_leases, see apps/gateway ConcurrencyLimiter) whose id
 * is the session's. It is taken under the same per-team advisory lock and count as a request's
 * lease, renewed by the replica holding the session (heartbeat), deleted in the transaction that
 * ends the session (so exactly once, whatever ends it), and it expires on its own when the replica
 * dies without anyone ending its sessions. The create request's own lease is not counted: the
 * session takes over that request's slot.
 */
export async function takeSessionLease(
  q: Queryable,
  teamId: string,
  sessionId: string,
  limit: { max: number; requestLeaseId?: string },
): Promise<void> {
  await q.query("SELECT pg_advisory_xact_lock(hashtext('gateway.concurrency:' || $1))", [teamId]);
  const res = await q.query(
    `INSERT INTO gateway.concurrency_leases (id, team_id, expires_at)
     SELECT $2::uuid, $1, now() + make_interval(secs => $5::double precision / 1000)
     WHERE (SELECT count(*) FROM gateway.concurrency_leases
            WHERE team_id = $1 AND expires_at > now() AND id IS DISTINCT FROM $4::uuid) < $3::int`,
    [teamId, sessionId, limit.max, limit.requestLeaseId ?? null, CONCURRENCY_LEASE_TTL_MS],
  );
  if (res.rowCount === 0) {
    throw new ServiceError(
      ErrorCode.CONCURRENCY_LIMITED,
      `Concurrency limit reached: at most ${limit.max} requests in flight, and each active browser session holds one; end a session or retry later`,
      { reason: 'concurrency', maxConcurrency: limit.max },
      1,
    );
  }
}

/** Frees the session's slot (no-op when it held none). */
export async function dropSessionLease(q: Queryable, sessionId: string): Promise<void> {
  await q.query('DELETE FROM gateway.concurrency_leases WHERE id = $1', [sessionId]);
}

/** Extends the leases of the sessions this replica holds; called well within the lease ttl. */
export async function renewSessionLeases(q: Queryable, sessionIds: string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  await q.query(
    `UPDATE gateway.concurrency_leases
     SET expires_at = now() + make_interval(secs => $2::double precision / 1000) WHERE id = ANY($1::uuid[])`,
    [sessionIds, CONCURRENCY_LEASE_TTL_MS],
  );
}
