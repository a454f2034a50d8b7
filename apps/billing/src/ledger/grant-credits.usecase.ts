import { Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { ledgerSql } from './ledger.repository';
import { assertWholeCredits } from './ledger.types';
import { Database } from '@wds/database';

export interface GrantCreditsCommand {
  teamId: string;
  /** Positive grants; negative amounts are operator corrections and may not overdraw the account. */
  amount: number;
  reason: string;
  idempotencyKey: string;
}

export interface GrantOutcome {
  balance: number;
  replayed: boolean;
}

/** Adds (or, for a correction, removes) credits exactly once per idempotency key. */
@Injectable()
export class GrantCredits {
  constructor(private readonly db: Database) {}

  async execute(cmd: GrantCreditsCommand): Promise<GrantOutcome> {
    assertWholeCredits(cmd.amount, 'amount');
    return this.db.tx(async (db) => {
      const fresh = await ledgerSql.appendEntry(db, {
        teamId: cmd.teamId,
        delta: cmd.amount,
        kind: 'grant',
        reason: cmd.reason,
        idempotencyKey: `grant:${cmd.idempotencyKey}`,
      });
      if (!fresh) return { balance: await ledgerSql.balance(db, cmd.teamId), replayed: true };
      if (cmd.amount >= 0)
        return { balance: await ledgerSql.credit(db, cmd.teamId, cmd.amount), replayed: false };
      const balance = await ledgerSql.debitIfCovered(db, cmd.teamId, -cmd.amount);
      if (balance === undefined) {
        throw new ServiceError(ErrorCode.INSUFFICIENT_CREDITS, 'The correction exceeds the current balance', {
          teamId: cmd.teamId,
          required: -cmd.amount,
        });
      }
      return { balance, replayed: false };
    });
  }
}
