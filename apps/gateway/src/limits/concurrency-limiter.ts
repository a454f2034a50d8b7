import { Injectable } from '@nestjs/common';
import { CONCURRENCY_LEASE_TTL_MS } from '@wds/contracts';
import { Database } from '@wds/database';

/** How long a lease survives without renewal; a crashed gateway's slots come free after this. */
export const LEASE_TTL_MS = CONCURRENCY_LEASE_TTL_MS;

/**
 * Unused slots a replica may keep for a team between its requests, so a busy team does not pay a
 * PostgreSQL transaction per request. At most 1/64 of the team's limit (never for limits under
 * 64, which therefore stay exact), at most 256; idle spares are handed back by `returnIdleSpares`.
 * (With a cap of 16, a replica serving 32 concurrent requests of one team paid a transaction for
 * about every other request.)
 */
export function spareSlots(max: number): number {
  return Math.min(256, Math.floor(max / 64));
}

/** Most spare slots taken in one acquisition; spares then grow with the replica's actual use. */
const SPARES_PER_ACQUIRE = 16;

interface Spare {
  id: string;
  since: number;
}

/**
 * In-flight requests per team across all gateway replicas, as rows of gateway.concurrency_leases.
 * Acquiring counts the team's live leases under a per-team advisory lock, so two replicas cannot
 * both take the last slot. A replica may take a few more slots than it needs at once and keep
 * them as spares (see `spareSlots`); every lease held here, spare or in use, is renewed by
 * `renewHeld()` and counts against the team's limit on every replica.
 */
@Injectable()
export class ConcurrencyLimiter {
  /** Lease id → its team, for every lease this process holds (in use or spare). */
  private readonly held = new Map<string, { teamId: string; max: number }>();
  private readonly spares = new Map<string, Spare[]>();

  constructor(private readonly db: Database) {}

  /** A lease id, or undefined when the team already has `max` requests in flight. */
  async acquire(teamId: string, max: number): Promise<string | undefined> {
    const spare = this.spares.get(teamId)?.pop();
    if (spare) return spare.id;
    const want = 1 + Math.min(SPARES_PER_ACQUIRE, spareSlots(max));
    const ids = await this.db.tx(async (q) => {
      await q.query("SELECT pg_advisory_xact_lock(hashtext('gateway.concurrency:' || $1))", [teamId]);
      // Expired rows (a crashed replica's) do not count; housekeeping deletes them later.
      const res = await q.query<{ id: string }>(
        `INSERT INTO gateway.concurrency_leases (id, team_id, expires_at)
         SELECT gen_random_uuid(), $1, now() + make_interval(secs => $4::double precision / 1000)
         FROM generate_series(1, LEAST($3::int, $2::int - (
           SELECT count(*) FROM gateway.concurrency_leases WHERE team_id = $1 AND expires_at > now())::int))
         RETURNING id`,
        [teamId, max, want, LEASE_TTL_MS],
      );
      return res.rows.map((r) => r.id);
    });
    if (ids.length === 0) return undefined;
    for (const id of ids) this.held.set(id, { teamId, max });
    if (ids.length > 1) {
      const since = Date.now();
      this.spareList(teamId).push(...ids.slice(1).map((id) => ({ id, since })));
    }
    return ids[0];
  }

  async release(leaseId: string): Promise<void> {
    const owner = this.held.get(leaseId);
    if (owner) {
      const list = this.spareList(owner.teamId);
      if (list.length < spareSlots(owner.max)) {
        list.push({ id: leaseId, since: Date.now() });
        return;
      }
    }
    this.held.delete(leaseId);
    await this.db.query('DELETE FROM gateway.concurrency_leases WHERE id = $1', [leaseId]);
  }

  /** Leases of requests in flight through this process (spares excluded). */
  heldCount(): number {
    let spare = 0;
    for (const list of this.spares.values()) spare += list.length;
    return this.held.size - spare;
  }

  /**
   * The team's requests in flight on every replica: its live leases, less the spare slots this
   * replica keeps for it (spares other replicas keep, at most 1/64 of a limit of 64 or more each,
   * cannot be told apart and count as in flight).
   */
  async teamInFlight(teamId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM gateway.concurrency_leases WHERE team_id = $1 AND expires_at > now()',
      [teamId],
    );
    return Math.max(0, Number(rows[0].n) - (this.spares.get(teamId)?.length ?? 0));
  }

  /** Extends every lease this process holds; called well within LEASE_TTL_MS. */
  async renewHeld(): Promise<void> {
    if (this.held.size === 0) return;
    await this.db.query(
      `UPDATE gateway.concurrency_leases SET expires_at = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id = ANY($1::uuid[])`,
      [[...this.held.keys()], LEASE_TTL_MS],
    );
  }

  /** Gives back spare slots unused for `idleMs`, so other replicas can have them. */
  async returnIdleSpares(idleMs: number): Promise<void> {
    const cutoff = Date.now() - idleMs;
    const ids: string[] = [];
    for (const [teamId, list] of this.spares) {
      const keep = list.filter((s) => s.since > cutoff);
      for (const s of list) if (s.since <= cutoff) ids.push(s.id);
      if (keep.length) this.spares.set(teamId, keep);
      else this.spares.delete(teamId);
    }
    for (const id of ids) this.held.delete(id);
    if (ids.length)
      await this.db.query('DELETE FROM gateway.concurrency_leases WHERE id = ANY($1::uuid[])', [ids]);
  }

  /** Frees this process's slots on shutdown instead of letting them time out. */
  async releaseAll(): Promise<void> {
    const ids = [...this.held.keys()];
    this.held.clear();
    this.spares.clear();
    if (ids.length)
      await this.db.query('DELETE FROM gateway.concurrency_leases WHERE id = ANY($1::uuid[])', [ids]);
  }

  async deleteExpired(): Promise<void> {
    await this.db.query('DELETE FROM gateway.concurrency_leases WHERE expires_at <= now()');
  }

  private spareList(teamId: string): Spare[] {
    let list = this.spares.get(teamId);
    if (!list) {
      list = [];
      this.spares.set(teamId, list);
    }
    return list;
  }
}
