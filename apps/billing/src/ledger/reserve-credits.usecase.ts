import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { ledgerSql } from './ledger.repository';
import { Database, type Queryable } from '@wds/database';
import { assertWholeCredits, type ReservationOutcome } from './ledger.types';

export interface ReserveCreditsCommand {
  teamId: string;
  /** Idempotency handle of the caller's request: a retry with the same key gets the same reservation. */
  requestKey: string;
  amount: number;
  reason?: string;
  ttlMs: number;
}

function insufficient(teamId: string, amount: number): ServiceError {
  return new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'Insufficient credits to perform this request', {
    teamId,
    required: amount,
  });
}

/**
 * Holds `amount` credits for one request. The debit is a single conditional UPDATE, so concurrent
 * reservations can never take the balance below zero. A retry of the same (team, requestKey)
 * returns the existing reservation without a second debit; a released one is reserved again,
 * because the retry is a new attempt at work that was not charged.
 */
@Injectable()
export class ReserveCredits {
  constructor(private readonly db: Database) {}

  async execute(cmd: ReserveCreditsCommand): Promise<ReservationOutcome> {
    assertWholeCredits(cmd.amount, 'amount');
    return this.db.tx(async (db) => {
      if (cmd.amount > 0) {
        // One statement; the account row it locks is then held for the commit only.
        const fresh = await ledgerSql.reserveNew(db, { id: randomUUID(), ...cmd });
        if (fresh) {
          if (fresh.balance === undefined) throw insufficient(cmd.teamId, cmd.amount);
          return { reservation: fresh.reservation, balance: fresh.balance, replayed: false };
        }
        return this.replay(db, cmd);
      }
      const created = await ledgerSql.insertReservation(db, { id: randomUUID(), ...cmd });
      if (created) {
        await ledgerSql.appendEntry(db, {
          teamId: cmd.teamId,
          delta: -cmd.amount,
          kind: 'reserve',
          reason: cmd.reason,
          reservationId: created.id,
          idempotencyKey: `reserve:${created.id}:1`,
        });
        const balance = await this.debit(db, cmd.teamId, cmd.amount);
        if (balance === undefined) throw insufficient(cmd.teamId, cmd.amount);
        return { reservation: created, balance, replayed: false };
      }
      return this.replay(db, cmd);
    });
  }

  /** A retry of a request that already has a reservation. */
  private async replay(db: Queryable, cmd: ReserveCreditsCommand): Promise<ReservationOutcome> {
    const existing = await ledgerSql.lockReservation(db, {
      teamId: cmd.teamId,
      requestKey: cmd.requestKey,
    });
    if (!existing) throw new ServiceError(ErrorCode.CONFLICT, 'Reservation vanished during reserve; retry');
    if (existing.status !== 'released') {
      return { reservation: existing, balance: await ledgerSql.balance(db, cmd.teamId), replayed: true };
    }
    const balance = await this.debit(db, cmd.teamId, cmd.amount);
    if (balance === undefined) throw insufficient(cmd.teamId, cmd.amount);
    const attempt = existing.attempt + 1;
    const reservation = await ledgerSql.updateReservation(db, existing.id, {
      status: 'reserved',
      amount: cmd.amount,
      charged: 0,
      shortfall: 0,
      attempt,
      ttlMs: cmd.ttlMs,
    });
    await ledgerSql.appendEntry(db, {
      teamId: cmd.teamId,
      delta: -cmd.amount,
      kind: 'reserve',
      reason: cmd.reason,
      reservationId: existing.id,
      idempotencyKey: `reserve:${existing.id}:${attempt}`,
    });
    return { reservation, balance, replayed: false };
  }

  private async debit(db: Queryable, teamId: string, amount: number) {
    if (amount === 0) return ledgerSql.balance(db, teamId);
    return ledgerSql.debitIfCovered(db, teamId, amount);
  }
}
