import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BROWSER_POOL_RPC, ServiceError, type RpcRequestParsed } from '@wds/contracts';
import { rpc, type RpcAnswer } from '@wds/messaging';
import { ReplayStore } from '../replay/replay-store';
import { RenderPageUseCase } from './render-page.usecase';

/**
 * The browser-pool RPCs in the `browser-pool` queue group, as `@MessagePattern` handlers of the WDS
 * transport (ADR 0001); the pool's start, metrics and drain are `RenderServer`'s.
 */
@Controller()
export class RenderController {
  constructor(
    private readonly render: RenderPageUseCase,
    private readonly replay: ReplayStore,
  ) {}

  @MessagePattern(...rpc(BROWSER_POOL_RPC.render))
  renderPage(
    @Payload() req: RpcRequestParsed<typeof BROWSER_POOL_RPC.render>,
  ): RpcAnswer<typeof BROWSER_POOL_RPC.render> {
    return this.render.execute(req);
  }

  @MessagePattern(...rpc(BROWSER_POOL_RPC.replayContext))
  async replayContext(
    @Payload() req: RpcRequestParsed<typeof BROWSER_POOL_RPC.replayContext>,
  ): RpcAnswer<typeof BROWSER_POOL_RPC.replayContext> {
    const context = await this.replay.find(req.jobId);
    if (!context)
      throw new ServiceError('NOT_FOUND', 'No replay context for this scrape (unknown or expired)');
    if (context.teamId !== req.teamId)
      throw new ServiceError('FORBIDDEN', 'This scrape belongs to another team');
    return { context };
  }
}
