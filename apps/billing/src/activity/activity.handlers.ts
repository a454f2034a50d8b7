import { Controller, Inject, type OnApplicationBootstrap } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { ACTIVITY, CONSUMERS, RPC, STREAMS, type RpcRequestParsed, type StreamPayload } from '@wds/contracts';
import { Messaging, jetStream, rpc, type RpcAnswer } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { ListActivity } from './list-activity.usecase';
import { RecordActivity } from './record-activity.usecase';
import { GetCurrentUsage, GetHistoricalUsage } from './usage.usecases';

/**
 * Consumes WDS_ACTIVITY_V1 (activity and token events, acked once committed: a billing restart
 * loses nothing, a redelivery counts nothing twice) and serves the activity and usage reads, as
 * handlers of the WDS transport (ADR 0001). The streams are ensured in the bootstrap hook, which
 * runs before the transport binds the consumer.
 */
@Controller()
export class ActivityHandlers implements OnApplicationBootstrap {
  constructor(
    private readonly messaging: Messaging,
    private readonly record: RecordActivity,
    private readonly list: ListActivity,
    private readonly current: GetCurrentUsage,
    private readonly historical: GetHistoricalUsage,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.messaging.ensureStreams([STREAMS.WDS_ACTIVITY_V1, STREAMS.WDS_DLQ_V1]);
    this.logger.info('recording team activity from WDS_ACTIVITY_V1');
  }

  @MessagePattern(...rpc(RPC.activityList))
  activityList(
    @Payload() req: RpcRequestParsed<typeof RPC.activityList>,
  ): RpcAnswer<typeof RPC.activityList> {
    return this.list.execute(req);
  }

  @MessagePattern(...rpc(RPC.usageCurrent))
  usageCurrent(
    @Payload() req: RpcRequestParsed<typeof RPC.usageCurrent>,
  ): RpcAnswer<typeof RPC.usageCurrent> {
    return this.current.execute(req.teamId);
  }

  @MessagePattern(...rpc(RPC.usageHistorical))
  usageHistorical(
    @Payload() req: RpcRequestParsed<typeof RPC.usageHistorical>,
  ): RpcAnswer<typeof RPC.usageHistorical> {
    return this.historical.execute(req.teamId, req.byApiKey);
  }

  /** Several messages at once: their rows share one transaction (RecordActivity batches). */
  @EventPattern(...jetStream(ACTIVITY, CONSUMERS.billingActivity, { concurrency: 8 }))
  async activity(@Payload() batch: StreamPayload<typeof ACTIVITY>): Promise<void> {
    await this.record.execute(batch);
  }
}
