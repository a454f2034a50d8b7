import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPC, type RpcRequestParsed } from '@wds/contracts';
import { rpc, type RpcAnswer } from '@wds/messaging';
import { GetBalance } from './get-balance.usecase';
import { GrantCredits } from './grant-credits.usecase';
import { ReserveCredits } from './reserve-credits.usecase';
import { SettleCredits } from './settle-credits.usecase';
import { ReportCreditUsage, TakeCreditBlock } from './credit-blocks.usecases';

/** A reservation lives this long without a settle before the sweeper gives the credits back. */
export const RESERVATION_TTL_MS = 30 * 60_000;

type Req<D extends (typeof RPC)[keyof typeof RPC]> = RpcRequestParsed<D>;

/**
 * Serves the wds.billing.v1.credits.* RPCs (queue group "billing": one replica answers each) as
 * `@MessagePattern` handlers of the WDS transport (ADR 0001).
 */
@Controller()
export class LedgerHandlers {
  constructor(
    private readonly reserve: ReserveCredits,
    private readonly settle: SettleCredits,
    private readonly grant: GrantCredits,
    private readonly getBalance: GetBalance,
    private readonly takeBlock: TakeCreditBlock,
    private readonly reportUsage: ReportCreditUsage,
  ) {}

  @MessagePattern(...rpc(RPC.creditsReserve))
  async creditsReserve(@Payload() req: Req<typeof RPC.creditsReserve>): RpcAnswer<typeof RPC.creditsReserve> {
    const { reservation, balance } = await this.reserve.execute({
      teamId: req.teamId,
      requestKey: req.requestId,
      amount: req.amount,
      reason: req.endpoint,
      ttlMs: req.ttlMs ?? RESERVATION_TTL_MS,
    });
    return { reservationId: reservation.id, balance };
  }

  @MessagePattern(...rpc(RPC.creditsSettle))
  async creditsSettle(@Payload() req: Req<typeof RPC.creditsSettle>): RpcAnswer<typeof RPC.creditsSettle> {
    const { reservation, balance } = await this.settle.execute({
      reservationId: req.reservationId,
      actual: req.actual,
    });
    return { balance, charged: reservation.charged };
  }

  @MessagePattern(...rpc(RPC.creditsGrant))
  async creditsGrant(@Payload() req: Req<typeof RPC.creditsGrant>): RpcAnswer<typeof RPC.creditsGrant> {
    const { balance } = await this.grant.execute(req);
    return { balance };
  }

  @MessagePattern(...rpc(RPC.creditsBlockTake))
  creditsBlockTake(@Payload() req: Req<typeof RPC.creditsBlockTake>): RpcAnswer<typeof RPC.creditsBlockTake> {
    return this.takeBlock.execute(req);
  }

  @MessagePattern(...rpc(RPC.creditsUsageReport))
  creditsUsageReport(
    @Payload() req: Req<typeof RPC.creditsUsageReport>,
  ): RpcAnswer<typeof RPC.creditsUsageReport> {
    return this.reportUsage.execute(req);
  }

  @MessagePattern(...rpc(RPC.creditsBalance))
  async creditsBalance(@Payload() req: Req<typeof RPC.creditsBalance>): RpcAnswer<typeof RPC.creditsBalance> {
    return { balance: await this.getBalance.execute(req.teamId) };
  }
}
