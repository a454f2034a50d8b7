import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ACTIVITY, CONSUMERS, RPC, STREAMS } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { ListActivity } from './list-activity.usecase';
import { RecordActivity } from './record-activity.usecase';
import { GetCurrentUsage, GetHistoricalUsage } from './usage.usecases';

/**
 * Consumes WDS_ACTIVITY_V1 (activity and token events, acked once committed: a billing restart
 * loses nothing, a redelivery counts nothing twice) and serves the activity and usage reads.
 */
@Injectable()
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
    this.messaging.serve(RPC.activityList, (req) => this.list.execute(req));
    this.messaging.serve(RPC.usageCurrent, (req) => this.current.execute(req.teamId));
    this.messaging.serve(RPC.usageHistorical, (req) => this.historical.execute(req.teamId, req.byApiKey));
    await this.messaging.ensureStreams([STREAMS.WDS_ACTIVITY_V1, STREAMS.WDS_DLQ_V1]);
    // Several messages at once: their rows share one transaction (RecordActivity batches).
    await this.messaging.consume(
      ACTIVITY,
      CONSUMERS.billingActivity,
      async (batch) => {
        await this.record.execute(batch);
      },
      { concurrency: 8 },
    );
    this.logger.info('recording team activity from WDS_ACTIVITY_V1');
  }
}
