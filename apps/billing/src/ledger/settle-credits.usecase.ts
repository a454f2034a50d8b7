import { Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { ledgerSql } from './ledger.repository';
import { Database, type Queryable } from '@wds/database';
import { assertWholeCredits, type Reservation, type ReservationOutcome } from './ledger.types';

export interface SettleCreditsCommand {
  reservationId: string;
  /** Credits the work actually cost; may be more or less than reserved. */
  actual: number;
  reason?: string;
}

/**
 * Charges the actual cost of a reserved request. Less than reserved: the difference is refunded.
 * More: the extra is debited as far as the balance goes (never below zero) and the rest is recorded
 * as a shortfall. Settling twice is a no-op. A reservation the sweeper already released (the work
 * outlived its reservation) is charged from the balance in the same way.
 */
@Injectable()
export class SettleCredits {
  constructor(private readonly db: Database) {}

  async execute(cmd: SettleCreditsCommand): Promise<ReservationOutcome> {
    assertWholeCredits(cmd.actual, 'actual');
    // One statement (atomic on its own) for the usual case; everything else takes the row lock below.
    const quick = await ledgerSql.settleWithinHold(this.db, {
      id: cmd.reservationId,
      actual: cmd.actual,
      reason: cmd.reason,
    });
    if (quick) return { ...quick, replayed: false };
    return this.db.tx(async (db) => {
      const r = await ledgerSql.lockReservation(db, { id: cmd.reservationId });
      if (!r) throw new ServiceError(ErrorCode.NOT_FOUND, `Reservation ${cmd.reservationId} not found`);
      return settleLocked(db, r, cmd.actual, cmd.reason);
    });
  }
}

/** Settles a reservation whose row the caller's transaction has locked (see SettleCredits). */
export async function settleLocked(
  db: Queryable,
  r: Reservation,
  actual: number,
  reason?: string,
): Promise<ReservationOutcome> {
  if (r.status === 'settled') {
    return { reservation: r, balance: await ledgerSql.balance(db, r.teamId), replayed: true };
  }
  const held = r.status === 'reserved' ? r.amount : 0;
  let balance: number;
  let shortfall = 0;
  let delta: number;
  if (actual <= held) {
    delta = held - actual;
    balance = delta > 0 ? await ledgerSql.credit(db, r.teamId, delta) : await ledgerSql.balance(db, r.teamId);
  } else {
    const extra = actual - held;
    const debit = await ledgerSql.debitUpTo(db, r.teamId, extra);
    balance = debit.balance;
    shortfall = extra - debit.taken;
    delta = -debit.taken;
  }
  const reservation = await ledgerSql.updateReservation(db, r.id, {
    status: 'settled',
    charged: actual - shortfall,
    shortfall,
  });
  await ledgerSql.appendEntry(db, {
    teamId: r.teamId,
    delta,
    kind: 'settle',
    reason,
    reservationId: r.id,
    idempotencyKey: `settle:${r.id}`,
  });
  return { reservation, balance, replayed: false };
}
