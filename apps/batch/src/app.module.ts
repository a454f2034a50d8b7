import { Module } from '@nestjs/common';
import { BatchModule } from './batch/batch.module';

/** Root feature module of the batch service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [BatchModule],
})
export class AppModule {}
