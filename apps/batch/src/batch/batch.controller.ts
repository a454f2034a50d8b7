import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BATCH_RPC, type RpcRequestParsed } from '@wds/contracts';
import { rpc, type RpcAnswer } from '@wds/messaging';
import { BatchService } from './batch.service';

/**
 * The batch create RPC as a handler of the WDS transport (ADR 0001); the page tasks and the job
 * queries are the job kit's controllers (libs/jobs `jobServiceModule`).
 */
@Controller()
export class BatchController {
  constructor(private readonly batch: BatchService) {}

  @MessagePattern(...rpc(BATCH_RPC.create))
  create(@Payload() req: RpcRequestParsed<typeof BATCH_RPC.create>): RpcAnswer<typeof BATCH_RPC.create> {
    return this.batch.create.execute(req);
  }
}
