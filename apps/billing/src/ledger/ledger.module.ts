import { Module } from '@nestjs/common';
import { GetBalance } from './get-balance.usecase';
import { GrantCredits } from './grant-credits.usecase';
import { LedgerHandlers } from './ledger.handlers';
import { ReleaseCredits } from './release-credits.usecase';
import { ReservationSweeper } from './reservation-sweeper';
import { ReserveCredits } from './reserve-credits.usecase';
import { SettleCredits } from './settle-credits.usecase';
import { ReportCreditUsage, TakeCreditBlock } from './credit-blocks.usecases';

/** The credits ledger (schema billing): reservations, settlement, grants and balances over NATS RPC. */
@Module({
  controllers: [LedgerHandlers],
  providers: [
    ReserveCredits,
    SettleCredits,
    ReleaseCredits,
    GrantCredits,
    GetBalance,
    ReservationSweeper,
    TakeCreditBlock,
    ReportCreditUsage,
  ],
  exports: [ReserveCredits, SettleCredits, ReleaseCredits, GrantCredits, GetBalance, ReservationSweeper],
})
export class LedgerModule {}
