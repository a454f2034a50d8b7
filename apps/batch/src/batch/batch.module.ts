import { Module } from '@nestjs/common';
import { BATCH_RPC } from '@wds/contracts';
import { jobQueriesController } from '@wds/jobs';
import { ExtractController } from '../extract/extract.controller';
import { BatchController } from './batch.controller';
import { BatchService } from './batch.service';

const BATCH_JOB_QUERIES = Symbol('BATCH_JOB_QUERIES');

/**
 * Batch scrapes: RPCs for the gateway and the page-task consumer (BatchController, and the job
 * queries' controller), the extract and agent job RPCs (ExtractController), the job watchdog.
 */
@Module({
  controllers: [BatchController, ExtractController, jobQueriesController(BATCH_RPC, BATCH_JOB_QUERIES)],
  providers: [
    BatchService,
    { provide: BATCH_JOB_QUERIES, inject: [BatchService], useFactory: (s: BatchService) => s.queries },
  ],
})
export class BatchModule {}
