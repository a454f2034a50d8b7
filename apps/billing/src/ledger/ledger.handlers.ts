import { Injectable, type OnModuleInit } from '@nestjs/common';
import { RPC } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { GetBalance } from './get-balance.usecase';
import { GrantCredits } from './grant-credits.usecase';
import { ReserveCredits } from './reserve-credits.usecase';
import { SettleCredits } from './settle-credits.usecase';
import { ReportCreditUsage, TakeCreditBlock } from './credit-blocks.usecases';

/** A reservation lives this long without a settle before the sweeper gives the credits back. */
export const RESERVATION_TTL_MS = 30 * 60_000;

/** Serves the wds.billing.v1.credits.* RPCs (queue group "billing": one replica answers each). */
@Injectable()
export class LedgerHandlers implements OnModuleInit {
  constructor(
    private readonly messaging: Messaging,
    private readonly reserve: ReserveCredits,
    private readonly settle: SettleCredits,
    private readonly grant: GrantCredits,
    private readonly getBalance: GetBalance,
    private readonly takeBlock: TakeCreditBlock,
    private readonly reportUsage: ReportCreditUsage,
  ) {}

  onModuleInit(): void {
    this.messaging.serve(RPC.creditsReserve, async (req) => {
      const { reservation, balance } = await this.reserve.execute({
        teamId: req.teamId,
        requestKey: req.requestId,
        amount: req.amount,
        reason: req.endpoint,
        ttlMs: req.ttlMs ?? RESERVATION_TTL_MS,
      });
      return { reservationId: reservation.id, balance };
    });
    this.messaging.serve(RPC.creditsSettle, async (req) => {
      const { reservation, balance } = await this.settle.execute({
        reservationId: req.reservationId,
        actual: req.actual,
      });
      return { balance, charged: reservation.charged };
    });
    this.messaging.serve(RPC.creditsGrant, async (req) => {
      const { balance } = await this.grant.execute(req);
      return { balance };
    });
    this.messaging.serve(RPC.creditsBlockTake, (req) => this.takeBlock.execute(req));
    this.messaging.serve(RPC.creditsUsageReport, (req) => this.reportUsage.execute(req));
    this.messaging.serve(RPC.creditsBalance, async (req) => ({
      balance: await this.getBalance.execute(req.teamId),
    }));
  }
}
