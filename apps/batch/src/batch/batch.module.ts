import { Module } from '@nestjs/common';
import { BatchController } from './batch.controller';
import { BatchService } from './batch.service';

/** Batch scrapes: RPCs for the gateway, the page-task consumer (BatchController), the job watchdog. */
@Module({ controllers: [BatchController], providers: [BatchService] })
export class BatchModule {}
