import { Module } from '@nestjs/common';
import { jobServiceModule } from '@wds/jobs';
import { BATCH_JOB_KIT } from '../batch.job-kit';
import { ExtractController } from '../extract/extract.controller';
import { BatchController } from './batch.controller';
import { BatchService } from './batch.service';

/**
 * Batch scrapes: the create RPC (BatchController), the extract and agent job RPCs
 * (ExtractController); the page tasks, the job queries and the watchdog are the job kit's
 * (libs/jobs `jobServiceModule`, ADR 0024).
 */
@Module(jobServiceModule(BATCH_JOB_KIT, BatchService, { controllers: [BatchController, ExtractController] }))
export class BatchModule {}
