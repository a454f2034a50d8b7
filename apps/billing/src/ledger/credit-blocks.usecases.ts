import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  ServiceError,
  type CreditsBlockTakeReply,
  type CreditsBlockTakeRequest,
  type CreditsUsageReportReply,
  type CreditsUsageReportRequest,
} from '@wds/contracts';
import { Database, type Queryable } from '@wds/database';
import { jobIdOfUsageKey, lockJobsForAttribution } from '../activity/usage-attribution';
import { ledgerSql } from './ledger.repository';
import type { Reservation } from './ledger.types';
import { settleLocked } from './settle-credits.usecase';

/** A block lives this long unless a usage report renews it; its holder renews well within. */
export const BLOCK_TTL_MS = 120_000;
/**
 * Balances under this are served exactly: a block holds only what the one request needs, so no
 * credit of a nearly empty account sits in another replica's block while this one answers 402.
 */
export const EXACT_BELOW = 1_000;
/** Above EXACT_BELOW a block takes at most this share of the balance, bounding what one replica holds. */
const MAX_SHARE_DIVISOR = 8;

/**
 * Takes a block of a team's credits in one statement: the account row is locked, the grant decided
 * from the balance, the balance debited, the block reservation and its journal entry written.
 */
@Injectable()
export class TakeCreditBlock {
  constructor(private readonly db: Database) {}

  async execute(cmd: CreditsBlockTakeRequest): Promise<CreditsBlockTakeReply> {
    const id = randomUUID();
    const wanted = Math.max(cmd.amount, cmd.minimum);
    const res = await this.db.query<{ granted: string; balance: string; expires_at: Date }>(
      `WITH old AS (SELECT balance FROM billing.accounts WHERE team_id = $1::text FOR UPDATE),
       g AS (
         SELECT CASE WHEN old.balance >= $4 THEN GREATEST($3::bigint, LEAST($2::bigint, old.balance / $7))
                     ELSE $3::bigint END AS amt
         FROM old WHERE old.balance >= $3),
       deb AS (
         UPDATE billing.accounts a SET balance = a.balance - g.amt, updated_at = now()
         FROM g WHERE a.team_id = $1
         RETURNING g.amt AS granted, a.balance),
       ins AS (
         INSERT INTO billing.reservations (id, team_id, request_key, amount, status, reason, expires_at, kind)
         SELECT $5::uuid, $1, 'block:' || $5::text, deb.granted, 'reserved', $6,
                now() + make_interval(secs => $8::double precision / 1000), 'block'
         FROM deb RETURNING expires_at),
       ent AS (
         INSERT INTO billing.ledger_entries (team_id, delta, kind, reason, reservation_id, idempotency_key)
         SELECT $1, -deb.granted, 'reserve', $6, $5::uuid, 'reserve:' || $5::text || ':1' FROM deb)
       SELECT deb.granted, deb.balance, (SELECT expires_at FROM ins) AS expires_at FROM deb`,
      [
        cmd.teamId,
        wanted,
        cmd.minimum,
        EXACT_BELOW,
        id,
        `block ${cmd.holder}`,
        MAX_SHARE_DIVISOR,
        BLOCK_TTL_MS,
      ],
    );
    const row = res.rows[0];
    if (!row) {
      throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits to perform this request', {
        teamId: cmd.teamId,
        required: cmd.minimum,
      });
    }
    return {
      reservationId: id,
      granted: Number(row.granted),
      balance: Number(row.balance),
      expiresAt: row.expires_at.getTime(),
    };
  }
}

/**
 * Records usage against a block (idempotent per team and key), renews the block, and closes it on
 * request: the unused rest goes back to the balance, usage beyond the block is debited as far as
 * the balance goes. Usage reported after the block was closed or expired is charged from the
 * balance directly, so late reports are never lost and never charged twice.
 */
@Injectable()
export class ReportCreditUsage {
  constructor(private readonly db: Database) {}

  async execute(cmd: CreditsUsageReportRequest): Promise<CreditsUsageReportReply> {
    return this.db.tx(async (db) => {
      const r = await ledgerSql.lockReservation(db, { id: cmd.reservationId });
      if (!r || r.kind !== 'block') {
        throw new ServiceError(ErrorCode.NOT_FOUND, `Credit block ${cmd.reservationId} not found`);
      }
      const recorded = await insertUsage(db, r, cmd.usage);
      if (r.status !== 'reserved') {
        const taken = recorded > 0 ? await chargeLate(db, r, recorded) : 0;
        return { recorded, used: r.charged + taken, open: false, expiresAt: r.expiresAt.getTime() };
      }
      const res = await db.query<{ charged: string; expires_at: Date }>(
        `UPDATE billing.reservations SET charged = charged + $2, updated_at = now(),
           expires_at = now() + make_interval(secs => $3::double precision / 1000)
         WHERE id = $1 RETURNING charged, expires_at`,
        [r.id, recorded, BLOCK_TTL_MS],
      );
      const used = Number(res.rows[0].charged);
      if (!cmd.close) return { recorded, used, open: true, expiresAt: res.rows[0].expires_at.getTime() };
      await settleLocked(db, { ...r, charged: used }, used, 'block closed');
      return { recorded, used, open: false, expiresAt: res.rows[0].expires_at.getTime() };
    });
  }
}

async function insertUsage(
  db: Queryable,
  r: Reservation,
  usage: CreditsUsageReportRequest['usage'],
): Promise<number> {
  if (usage.length === 0) return 0;
  // Also counted per UTC month and API key (usage_monthly), in the same statement: only rows this
  // report inserted count, so a repeated report changes nothing. Page usage names its job in its
  // key; without a key of its own it takes the job's (job_keys, from the job's activity event),
  // under the job's attribution lock so that an activity event committing meanwhile is not missed.
  const jobIds = usage.map((u) => jobIdOfUsageKey(u.key));
  await lockJobsForAttribution(
    db,
    jobIds.filter((j, i): j is string => j !== null && !usage[i].apiKey),
  );
  const res = await db.query<{ recorded: string }>(
    `WITH u AS (
       SELECT * FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[])
         AS u(key, amount, endpoint, api_key, job_id)),
     ins AS (
       INSERT INTO billing.usage (team_id, usage_key, reservation_id, amount, endpoint, api_key, job_id)
       SELECT $1, u.key, $2, u.amount, u.endpoint, COALESCE(u.api_key, jk.api_key), u.job_id
       FROM u LEFT JOIN billing.job_keys jk ON jk.job_id = u.job_id AND jk.team_id = $1
       ON CONFLICT (team_id, usage_key) DO NOTHING
       RETURNING amount, api_key),
     mon AS (
       INSERT INTO billing.usage_monthly (team_id, month, api_key, credits)
       SELECT $1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, COALESCE(api_key, ''), sum(amount)
       FROM ins GROUP BY 3 HAVING sum(amount) > 0
       ON CONFLICT (team_id, month, api_key) DO UPDATE SET credits = billing.usage_monthly.credits + EXCLUDED.credits)
     SELECT COALESCE(sum(amount), 0) AS recorded FROM ins`,
    [
      r.teamId,
      r.id,
      usage.map((u) => u.key),
      usage.map((u) => u.amount),
      usage.map((u) => u.endpoint),
      usage.map((u) => u.apiKey ?? null),
      jobIds,
    ],
  );
  return Number(res.rows[0].recorded);
}

/**
 * Usage that arrived after its block was settled: debited from the balance as far as it goes.
 * Returns what was taken (the rest is recorded as shortfall).
 */
async function chargeLate(db: Queryable, r: Reservation, amount: number): Promise<number> {
  const { taken } = await ledgerSql.debitUpTo(db, r.teamId, amount);
  await db.query(
    `UPDATE billing.reservations SET charged = charged + $2, shortfall = shortfall + $3, updated_at = now()
     WHERE id = $1`,
    [r.id, taken, amount - taken],
  );
  await ledgerSql.appendEntry(db, {
    teamId: r.teamId,
    delta: -taken,
    kind: 'settle',
    reason: 'late block usage',
    reservationId: r.id,
    idempotencyKey: `late:${r.id}:${randomUUID()}`,
  });
  return taken;
}
