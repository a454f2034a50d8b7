import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { ActivityCursors } from './activity-cursor';
import { ActivityHandlers } from './activity.handlers';
import { ActivityMaintenance } from './activity-maintenance';
import { ActivityPartitions } from './activity-partitions';
import { ListActivity } from './list-activity.usecase';
import { RecordActivity } from './record-activity.usecase';
import { GetCurrentUsage, GetHistoricalUsage } from './usage.usecases';

/** Team activity and usage records (schema billing): recorded from WDS_ACTIVITY_V1 and usage reports, read over NATS RPC. */
@Module({
  controllers: [ActivityHandlers],
  imports: [LedgerModule],
  providers: [
    ActivityCursors,
    ActivityPartitions,
    ActivityMaintenance,
    RecordActivity,
    ListActivity,
    GetCurrentUsage,
    GetHistoricalUsage,
  ],
})
export class ActivityModule {}
