import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BROWSER_AGENT_RPC, type RpcRequestParsed } from '@wds/contracts';
import { rpc, type RpcAnswer } from '@wds/messaging';
import type { BrowserPoolConfig } from '../config';
import { RunAgentUseCase } from './run-agent.usecase';

/**
 * wds.browser-pool.v1.agent.run (queue group browser-pool) as a `@MessagePattern` handler of the
 * WDS transport (ADR 0001), served only by replicas that take agent runs (WDS_AGENT_RUNS > 0).
 */
@Controller()
export class AgentController {
  constructor(private readonly runs: RunAgentUseCase) {}

  @MessagePattern(...rpc(BROWSER_AGENT_RPC.run, { when: (c: BrowserPoolConfig) => c.WDS_AGENT_RUNS > 0 }))
  run(
    @Payload() req: RpcRequestParsed<typeof BROWSER_AGENT_RPC.run>,
  ): RpcAnswer<typeof BROWSER_AGENT_RPC.run> {
    return this.runs.execute(req);
  }
}
