import type { Queryable } from '@wds/database';
import type { Reservation, ReservationKind, ReservationStatus } from './ledger.types';

type SqlRunner = Queryable;

export interface ReservationRow {
  id: string;
  team_id: string;
  request_key: string;
  amount: string;
  charged: string;
  shortfall: string;
  status: ReservationStatus;
  attempt: number;
  expires_at: Date;
  kind: ReservationKind;
}

export const RESERVATION_COLUMNS =
  'id, team_id, request_key, amount, charged, shortfall, status, attempt, expires_at, kind';

export function toReservation(r: ReservationRow): Reservation {
  return {
    id: r.id,
    teamId: r.team_id,
    requestKey: r.request_key,
    amount: Number(r.amount),
    charged: Number(r.charged),
    shortfall: Number(r.shortfall),
    status: r.status,
    attempt: r.attempt,
    expiresAt: r.expires_at,
    kind: r.kind,
  };
}

export type LedgerKind = 'grant' | 'reserve' | 'settle' | 'release';

/**
 * SQL statements of the credits ledger. Every method runs on the runner it is given, so callers
 * compose them inside one transaction; the row locks they take are documented per method.
 */
export const ledgerSql = {
  /** Inserts a new reservation or returns undefined when (team, requestKey) already has one. */
  async insertReservation(
    db: SqlRunner,
    r: { id: string; teamId: string; requestKey: string; amount: number; reason?: string; ttlMs: number },
  ): Promise<Reservation | undefined> {
    const res = await db.query<ReservationRow>(
      `INSERT INTO billing.reservations (id, team_id, request_key, amount, status, reason, expires_at)
       VALUES ($1, $2, $3, $4, 'reserved', $5, now() + make_interval(secs => $6::double precision / 1000))
       ON CONFLICT (team_id, request_key) DO NOTHING
       RETURNING ${RESERVATION_COLUMNS}`,
      [r.id, r.teamId, r.requestKey, r.amount, r.reason ?? null, r.ttlMs],
    );
    return res.rows[0] ? toReservation(res.rows[0]) : undefined;
  },

  /**
   * The common reserve in one statement: inserts the reservation, its journal entry and debits the
   * account when it covers `amount` (> 0). Undefined when (team, requestKey) already has a
   * reservation; `balance` undefined when the balance is short, and then the caller must roll the
   * transaction back (the reservation and entry were written).
   */
  async reserveNew(
    db: SqlRunner,
    r: { id: string; teamId: string; requestKey: string; amount: number; reason?: string; ttlMs: number },
  ): Promise<{ reservation: Reservation; balance: number | undefined } | undefined> {
    const res = await db.query<ReservationRow & { balance: string | null }>(
      `WITH ins AS (
         INSERT INTO billing.reservations (id, team_id, request_key, amount, status, reason, expires_at)
         VALUES ($1, $2, $3, $4, 'reserved', $5, now() + make_interval(secs => $6::double precision / 1000))
         ON CONFLICT (team_id, request_key) DO NOTHING
         RETURNING ${RESERVATION_COLUMNS}),
       ent AS (
         INSERT INTO billing.ledger_entries (team_id, delta, kind, reason, reservation_id, idempotency_key)
         SELECT ins.team_id, -ins.amount, 'reserve', $5, ins.id, 'reserve:' || ins.id || ':1' FROM ins
         ON CONFLICT (idempotency_key) DO NOTHING),
       deb AS (
         UPDATE billing.accounts SET balance = balance - $4, updated_at = now()
         WHERE team_id = $2 AND balance >= $4 AND EXISTS (SELECT 1 FROM ins)
         RETURNING balance)
       SELECT ins.*, (SELECT balance FROM deb) AS balance FROM ins`,
      [r.id, r.teamId, r.requestKey, r.amount, r.reason ?? null, r.ttlMs],
    );
    const row = res.rows[0];
    if (!row) return undefined;
    return {
      reservation: toReservation(row),
      balance: row.balance === null ? undefined : Number(row.balance),
    };
  },

  /**
   * The common settle in one statement: a reservation still held whose actual cost is within the
   * hold is marked settled, the difference refunded and the entry journalled. Undefined when that
   * does not apply (settled, released, unknown, or costing more than held): use the general path.
   */
  async settleWithinHold(
    db: SqlRunner,
    s: { id: string; actual: number; reason?: string },
  ): Promise<{ reservation: Reservation; balance: number } | undefined> {
    const res = await db.query<ReservationRow & { balance: string }>(
      `WITH up AS (
         UPDATE billing.reservations SET status = 'settled', charged = $2, shortfall = 0, updated_at = now()
         WHERE id = $1 AND status = 'reserved' AND amount >= $2
         RETURNING ${RESERVATION_COLUMNS}),
       cr AS (
         UPDATE billing.accounts a SET balance = a.balance + (up.amount - $2), updated_at = now()
         FROM up WHERE a.team_id = up.team_id AND up.amount > $2
         RETURNING a.balance),
       ent AS (
         INSERT INTO billing.ledger_entries (team_id, delta, kind, reason, reservation_id, idempotency_key)
         SELECT up.team_id, up.amount - $2, 'settle', $3, up.id, 'settle:' || up.id FROM up
         ON CONFLICT (idempotency_key) DO NOTHING)
       SELECT up.*, COALESCE((SELECT balance FROM cr),
                             (SELECT balance FROM billing.accounts WHERE team_id = up.team_id), 0) AS balance
       FROM up`,
      [s.id, s.actual, s.reason ?? null],
    );
    const row = res.rows[0];
    return row ? { reservation: toReservation(row), balance: Number(row.balance) } : undefined;
  },

  /** Locks the reservation row (FOR UPDATE) for the rest of the transaction. */
  async lockReservation(db: SqlRunner, where: { id: string } | { teamId: string; requestKey: string }) {
    const res =
      'id' in where
        ? await db.query<ReservationRow>(
            `SELECT ${RESERVATION_COLUMNS} FROM billing.reservations WHERE id = $1 FOR UPDATE`,
            [where.id],
          )
        : await db.query<ReservationRow>(
            `SELECT ${RESERVATION_COLUMNS} FROM billing.reservations
             WHERE team_id = $1 AND request_key = $2 FOR UPDATE`,
            [where.teamId, where.requestKey],
          );
    return res.rows[0] ? toReservation(res.rows[0]) : undefined;
  },

  async updateReservation(
    db: SqlRunner,
    id: string,
    patch: {
      status: ReservationStatus;
      amount?: number;
      charged?: number;
      shortfall?: number;
      attempt?: number;
      ttlMs?: number;
    },
  ): Promise<Reservation> {
    const res = await db.query<ReservationRow>(
      `UPDATE billing.reservations SET
         status = $2,
         amount = COALESCE($3, amount),
         charged = COALESCE($4, charged),
         shortfall = COALESCE($5, shortfall),
         attempt = COALESCE($6, attempt),
         expires_at = CASE WHEN $7::bigint IS NULL THEN expires_at
                           ELSE now() + make_interval(secs => $7::double precision / 1000) END,
         updated_at = now()
       WHERE id = $1
       RETURNING ${RESERVATION_COLUMNS}`,
      [
        id,
        patch.status,
        patch.amount ?? null,
        patch.charged ?? null,
        patch.shortfall ?? null,
        patch.attempt ?? null,
        patch.ttlMs ?? null,
      ],
    );
    return toReservation(res.rows[0]);
  },

  /**
   * Debits `amount` only when the balance covers it, in one conditional UPDATE: concurrent debits
   * serialise on the account row and each re-checks the condition against the committed balance.
   * Returns the new balance, or undefined when the balance is short (or the account is missing).
   */
  async debitIfCovered(db: SqlRunner, teamId: string, amount: number): Promise<number | undefined> {
    const res = await db.query<{ balance: string }>(
      `UPDATE billing.accounts SET balance = balance - $2, updated_at = now()
       WHERE team_id = $1 AND balance >= $2 RETURNING balance`,
      [teamId, amount],
    );
    return res.rows[0] ? Number(res.rows[0].balance) : undefined;
  },

  /** Debits as much of `amount` as the balance allows (never below zero); returns what was taken. */
  async debitUpTo(
    db: SqlRunner,
    teamId: string,
    amount: number,
  ): Promise<{ taken: number; balance: number }> {
    const res = await db.query<{ taken: string; balance: string }>(
      `WITH old AS (SELECT balance FROM billing.accounts WHERE team_id = $1 FOR UPDATE)
       UPDATE billing.accounts a SET balance = a.balance - LEAST(old.balance, $2), updated_at = now()
       FROM old WHERE a.team_id = $1
       RETURNING LEAST(old.balance, $2) AS taken, a.balance`,
      [teamId, amount],
    );
    const row = res.rows[0];
    return row ? { taken: Number(row.taken), balance: Number(row.balance) } : { taken: 0, balance: 0 };
  },

  /** Adds credits, creating the account on first use; returns the new balance. */
  async credit(db: SqlRunner, teamId: string, amount: number): Promise<number> {
    const res = await db.query<{ balance: string }>(
      `INSERT INTO billing.accounts (team_id, balance) VALUES ($1, $2)
       ON CONFLICT (team_id) DO UPDATE SET balance = billing.accounts.balance + EXCLUDED.balance, updated_at = now()
       RETURNING balance`,
      [teamId, amount],
    );
    return Number(res.rows[0].balance);
  },

  async balance(db: SqlRunner, teamId: string): Promise<number> {
    const res = await db.query<{ balance: string }>(
      'SELECT balance FROM billing.accounts WHERE team_id = $1',
      [teamId],
    );
    return res.rows[0] ? Number(res.rows[0].balance) : 0;
  },

  /** Appends a journal entry; false when the idempotency key was already used (nothing written). */
  async appendEntry(
    db: SqlRunner,
    e: {
      teamId: string;
      delta: number;
      kind: LedgerKind;
      reason?: string;
      reservationId?: string;
      idempotencyKey: string;
    },
  ): Promise<boolean> {
    const res = await db.query(
      `INSERT INTO billing.ledger_entries (team_id, delta, kind, reason, reservation_id, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
      [e.teamId, e.delta, e.kind, e.reason ?? null, e.reservationId ?? null, e.idempotencyKey],
    );
    return (res.rowCount ?? 0) > 0;
  },

  /** Ids of reservations past their expiry; releasing re-checks the status under a row lock. */
  async expiredReservationIds(db: SqlRunner, limit: number): Promise<string[]> {
    const res = await db.query<{ id: string }>(
      `SELECT id FROM billing.reservations WHERE status = 'reserved' AND expires_at <= now()
       ORDER BY expires_at LIMIT $1`,
      [limit],
    );
    return res.rows.map((r) => r.id);
  },
};
