import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { BATCH_CONSUMERS, BATCH_RPC, BATCH_WORK, type PageTask, type RpcRequestParsed } from '@wds/contracts';
import { PAGE_RETRY_DELAYS_MS } from '@wds/jobs';
import { JetStreamContext, jetStream, rpc, type RpcAnswer } from '@wds/messaging';
import type { BatchConfig } from '../config';
import { BatchService } from './batch.service';

/**
 * The batch service's messages as handlers of the WDS transport (ADR 0001): the create RPC and the
 * page tasks from their durable consumer (any number of replicas share them).
 */
@Controller()
export class BatchController {
  constructor(private readonly batch: BatchService) {}

  @MessagePattern(...rpc(BATCH_RPC.create))
  create(@Payload() req: RpcRequestParsed<typeof BATCH_RPC.create>): RpcAnswer<typeof BATCH_RPC.create> {
    return this.batch.create.execute(req);
  }

  /** One delivery of a page task; throwing makes JetStream redeliver it (see PageRunner.handle). */
  @EventPattern(
    ...jetStream(
      BATCH_WORK.page,
      (c: BatchConfig) => ({ ...BATCH_CONSUMERS.page, ackWaitMs: c.WDS_BATCH_ACK_WAIT_MS }),
      {
        concurrency: (c: BatchConfig) => c.WDS_BATCH_WORKER_CONCURRENCY,
        retryDelayMs: PAGE_RETRY_DELAYS_MS,
      },
    ),
  )
  page(@Payload() task: PageTask, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.batch.jobs.runner.handle(task, ctx.getDeliveryCount());
  }
}
