import { Module } from '@nestjs/common';
import { ActivityModule } from './activity/activity.module';
import { LedgerModule } from './ledger/ledger.module';

/** Root feature module of the billing service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [LedgerModule, ActivityModule],
})
export class AppModule {}
