import { Module } from '@nestjs/common';
import { BatchService } from './batch.service';

/** Batch scrapes: RPCs for the gateway, the page-task consumer, the job watchdog. */
@Module({ providers: [BatchService] })
export class BatchModule {}
