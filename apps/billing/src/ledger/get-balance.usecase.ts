import { Injectable } from '@nestjs/common';
import { Database } from '@wds/database';
import { ledgerSql } from './ledger.repository';

/** A team's spendable balance (credits held by open reservations are already deducted). */
@Injectable()
export class GetBalance {
  constructor(private readonly db: Database) {}

  execute(teamId: string): Promise<number> {
    return ledgerSql.balance(this.db, teamId);
  }
}
