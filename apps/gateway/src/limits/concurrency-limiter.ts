import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Database } from '@wds/database';

/** How long a lease survives without renewal; a crashed gateway's slots come free after this. */
export const LEASE_TTL_MS = 30_000;

/**
 * In-flight requests per team across all gateway replicas, as rows of gateway.concurrency_leases.
 * Acquiring counts the team's live leases under a per-team advisory lock, so two replicas cannot
 * both take the last slot. Leases held by this process are renewed by `renewHeld()` while their
 * requests run.
 */
@Injectable()
export class ConcurrencyLimiter {
  private readonly held = new Set<string>();

  constructor(private readonly db: Database) {}

  /** A lease id, or undefined when the team already has `max` requests in flight. */
  async acquire(teamId: string, max: number): Promise<string | undefined> {
    const id = randomUUID();
    const acquired = await this.db.tx(async (q) => {
      await q.query("SELECT pg_advisory_xact_lock(hashtext('gateway.concurrency:' || $1))", [teamId]);
      await q.query('DELETE FROM gateway.concurrency_leases WHERE team_id = $1 AND expires_at <= now()', [
        teamId,
      ]);
      const res = await q.query(
        `INSERT INTO gateway.concurrency_leases (id, team_id, expires_at)
         SELECT $1, $2, now() + make_interval(secs => $4::double precision / 1000)
         WHERE (SELECT count(*) FROM gateway.concurrency_leases WHERE team_id = $2) < $3`,
        [id, teamId, max, LEASE_TTL_MS],
      );
      return (res.rowCount ?? 0) > 0;
    });
    if (!acquired) return undefined;
    this.held.add(id);
    return id;
  }

  async release(leaseId: string): Promise<void> {
    this.held.delete(leaseId);
    await this.db.query('DELETE FROM gateway.concurrency_leases WHERE id = $1', [leaseId]);
  }

  heldCount(): number {
    return this.held.size;
  }

  /** Extends every lease this process holds; called well within LEASE_TTL_MS. */
  async renewHeld(): Promise<void> {
    if (this.held.size === 0) return;
    await this.db.query(
      `UPDATE gateway.concurrency_leases SET expires_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id = ANY($1::uuid[])`,
      [[...this.held], LEASE_TTL_MS],
    );
  }

  /** Frees this process's slots on shutdown instead of letting them time out. */
  async releaseAll(): Promise<void> {
    const ids = [...this.held];
    this.held.clear();
    if (ids.length)
      await this.db.query('DELETE FROM gateway.concurrency_leases WHERE id = ANY($1::uuid[])', [ids]);
  }

  async deleteExpired(): Promise<void> {
    await this.db.query('DELETE FROM gateway.concurrency_leases WHERE expires_at <= now()');
  }
}
