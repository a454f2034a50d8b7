import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  CRAWL_CONSUMERS,
  CRAWL_RPC,
  CRAWL_WORK,
  type RpcRequestParsed,
  type StreamPayload,
} from '@wds/contracts';
import { jetStream, rpc, type RpcAnswer } from '@wds/messaging';
import { CrawlService } from './crawl.service';

/**
 * The crawler's own messages as handlers of the WDS transport (ADR 0001): the crawl and map RPCs,
 * and the kickoffs from their durable consumer (any number of replicas share it). The page tasks and
 * the job queries are the job kit's controllers (libs/jobs `jobServiceModule`).
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
}
