import { Injectable } from '@nestjs/common';
import { Database } from '@wds/database';

/**
 * A team's spendable balance: credits held by open request reservations are deducted, while the
 * unused part of open credit blocks still counts (those credits are only parked in a replica and
 * come back when the block closes), so the figure does not dip while a gateway holds a block.
 */
@Injectable()
export class GetBalance {
  constructor(private readonly db: Database) {}

  async execute(teamId: string): Promise<number> {
    const res = await this.db.query<{ balance: string }>(
      `SELECT COALESCE((SELECT balance FROM billing.accounts WHERE team_id = $1), 0)
            + COALESCE((SELECT sum(GREATEST(amount - charged, 0)) FROM billing.reservations
                        WHERE team_id = $1 AND kind = 'block' AND status = 'reserved'), 0) AS balance`,
      [teamId],
    );
    return Number(res.rows[0].balance);
  }
}
