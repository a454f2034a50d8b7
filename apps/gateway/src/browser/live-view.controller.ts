import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { BROWSER_SESSION_RPC, ErrorCode, LiveViewParams, ServiceError } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicRoute } from '../auth/public-route';
import type { GatewayConfig } from '../config';
import { validate } from '../http/validate';
import { serveLiveViewPage } from './live-view-page';

/**
 * The live-view pages (liveViewUrl / interactiveLiveViewUrl): no API key, the view token in the path
 * is the credential (it opens the view only, never CDP or the API). Its WebSocket: LiveViewSocket.
 */
@Controller(['v2/browser', 'v2/interact'])
export class LiveViewController {
  constructor(
    private readonly messaging: Messaging,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get(':sessionId/live/:token')
  @PublicRoute()
  async page(
    @Req() req: FastifyRequest,
    @Param() params: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { sessionId, token } = validate(LiveViewParams, params, 'path');
    const { mode } = await this.messaging
      .request(BROWSER_SESSION_RPC.resolve, { sessionId, token, purpose: 'live' })
      .catch((err: unknown) => {
        if (err instanceof ServiceError && err.code === ErrorCode.NOT_FOUND)
          throw new ServiceError(
            ErrorCode.NOT_FOUND,
            'Unknown or ended browser session, or wrong view token',
          );
        throw err;
      });
    if (!mode)
      throw new ServiceError(ErrorCode.NOT_FOUND, 'Unknown or ended browser session, or wrong view token');
    return serveLiveViewPage(req, reply, mode, this.config.WDS_LIVE_VIEW_FRAME_ANCESTORS);
  }
}
