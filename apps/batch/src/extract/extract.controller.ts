import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EXTRACT_RPC, type RpcRequestParsed } from '@wds/contracts';
import { rpc, type RpcAnswer } from '@wds/messaging';
import { BatchService } from '../batch/batch.service';

type Req<K extends keyof typeof EXTRACT_RPC> = RpcRequestParsed<(typeof EXTRACT_RPC)[K]>;
type Reply<K extends keyof typeof EXTRACT_RPC> = RpcAnswer<(typeof EXTRACT_RPC)[K]>;

/**
 * The extract and agent job RPCs (ADR 0023) as `@MessagePattern` handlers of the WDS transport
 * (ADR 0001), answered by the use cases of the batch runtime (their pages are batch page tasks).
 */
@Controller()
export class ExtractController {
  constructor(private readonly batch: BatchService) {}

  @MessagePattern(...rpc(EXTRACT_RPC.create))
  create(@Payload() req: Req<'create'>): Reply<'create'> {
    return this.batch.createExtract.execute(req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.status))
  status(@Payload() req: Req<'status'>): Reply<'status'> {
    return this.batch.readExtract.execute(req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.agentCreate))
  agentCreate(@Payload() req: Req<'agentCreate'>): Reply<'agentCreate'> {
    return this.batch.agents.create(this.batch.agentDeps, req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.agentCancel))
  agentCancel(@Payload() req: Req<'agentCancel'>): Reply<'agentCancel'> {
    return this.batch.agents.cancel(this.batch.agentDeps, req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.agentList))
  agentList(@Payload() req: Req<'agentList'>): Reply<'agentList'> {
    return this.batch.readExtract.list(req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.agentTrace))
  agentTrace(@Payload() req: Req<'agentTrace'>): Reply<'agentTrace'> {
    return this.batch.readExtract.trace(req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.agentThread))
  agentThread(@Payload() req: Req<'agentThread'>): Reply<'agentThread'> {
    return this.batch.readExtract.thread(req);
  }

  @MessagePattern(...rpc(EXTRACT_RPC.agentSnapshot))
  agentSnapshot(@Payload() req: Req<'agentSnapshot'>): Reply<'agentSnapshot'> {
    return this.batch.readExtract.snapshot(req);
  }
}
