import { Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { ledgerSql } from './ledger.repository';
import { Database } from '@wds/database';
import type { ReservationOutcome } from './ledger.types';
import { settleLocked } from './settle-credits.usecase';

export interface ReleaseCreditsCommand {
  reservationId: string;
  reason?: string;
  /** Sweeper only: release only if the reservation has expired (re-checked under the row lock). */
  onlyIfExpired?: boolean;
}

/**
 * Returns the held credits of a reservation nobody settled (the sweeper, once it expired): a
 * `request` reservation gives back its whole amount, a `block` keeps its reported usage charged.
 * Releasing twice, or after settling, is a no-op. (No RPC: work that fails before anything billable
 * hands its hold back to its credit block, ADR 0005.)
 */
@Injectable()
export class ReleaseCredits {
  constructor(private readonly db: Database) {}

  async execute(cmd: ReleaseCreditsCommand): Promise<ReservationOutcome> {
    return this.db.tx(async (db) => {
      const r = await ledgerSql.lockReservation(db, { id: cmd.reservationId });
      if (!r) throw new ServiceError(ErrorCode.NOT_FOUND, `Reservation ${cmd.reservationId} not found`);
      if (r.status !== 'reserved' || (cmd.onlyIfExpired && r.expiresAt.getTime() > Date.now())) {
        return { reservation: r, balance: await ledgerSql.balance(db, r.teamId), replayed: true };
      }
      // A block's reported usage stays charged: releasing it (or its expiry) returns only the rest.
      if (r.kind === 'block') return settleLocked(db, r, r.charged, cmd.reason ?? 'block released');
      const balance =
        r.amount > 0 ? await ledgerSql.credit(db, r.teamId, r.amount) : await ledgerSql.balance(db, r.teamId);
      const reservation = await ledgerSql.updateReservation(db, r.id, { status: 'released' });
      await ledgerSql.appendEntry(db, {
        teamId: r.teamId,
        delta: r.amount,
        kind: 'release',
        reason: cmd.reason,
        reservationId: r.id,
        idempotencyKey: `release:${r.id}:${r.attempt}`,
      });
      return { reservation, balance, replayed: false };
    });
  }
}
