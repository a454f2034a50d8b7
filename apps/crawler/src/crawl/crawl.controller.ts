import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  CRAWL_CONSUMERS,
  CRAWL_RPC,
  CRAWL_WORK,
  type PageTask,
  type RpcRequestParsed,
  type StreamPayload,
} from '@wds/contracts';
import { PAGE_RETRY_DELAYS_MS } from '@wds/jobs';
import { JetStreamContext, jetStream, rpc, type RpcAnswer } from '@wds/messaging';
import type { CrawlerConfig } from '../config';
import { CrawlService } from './crawl.service';

/**
 * The crawler's messages as handlers of the WDS transport (ADR 0001): the crawl and map RPCs, and
 * the kickoff and page tasks from their durable consumers (any number of replicas share them).
 */
@Controller()
export class CrawlController {
  constructor(private readonly crawl: CrawlService) {}

  @MessagePattern(...rpc(CRAWL_RPC.create))
  create(@Payload() req: RpcRequestParsed<typeof CRAWL_RPC.create>): RpcAnswer<typeof CRAWL_RPC.create> {
    return this.crawl.create.execute(req);
  }

  @MessagePattern(...rpc(CRAWL_RPC.map))
  map(@Payload() req: RpcRequestParsed<typeof CRAWL_RPC.map>): RpcAnswer<typeof CRAWL_RPC.map> {
    return this.crawl.map.execute(req);
  }

  @EventPattern(
    ...jetStream(CRAWL_WORK.kickoff, CRAWL_CONSUMERS.kickoff, { concurrency: 4, retryDelayMs: 5000 }),
  )
  kickoff(@Payload() msg: StreamPayload<typeof CRAWL_WORK.kickoff>): Promise<void> {
    return this.crawl.kickoff.execute(msg);
  }

  /** One delivery of a page task; throwing makes JetStream redeliver it (see PageRunner.handle). */
  @EventPattern(
    ...jetStream(
      CRAWL_WORK.page,
      (c: CrawlerConfig) => ({ ...CRAWL_CONSUMERS.page, ackWaitMs: c.WDS_CRAWL_ACK_WAIT_MS }),
      {
        concurrency: (c: CrawlerConfig) => c.WDS_CRAWL_WORKER_CONCURRENCY,
        retryDelayMs: PAGE_RETRY_DELAYS_MS,
      },
    ),
  )
  page(@Payload() task: PageTask, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.crawl.jobs.runner.handle(task, ctx.getDeliveryCount());
  }
}
