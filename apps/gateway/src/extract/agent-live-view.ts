import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Param,
  Req,
  Res,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  agentViewRpc,
  AgentLiveViewParams,
  ErrorCode,
  ServiceError,
  type AgentViewReply,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicRoute } from '../auth/public-route';
import { liveViewHeaders, liveViewPage } from '../browser/live-view-page';
import { refuseUpgrade, spliceToReplica } from '../browser/replica-splice';
import type { GatewayConfig } from '../config';
import { validate } from '../http/validate';

/** How long the gateway waits for the replica running an agent to name its view. */
const VIEW_TIMEOUT_MS = 3000;

/**
 * The live view of an agent run in progress, as its replica names it (agentViewRpc), or undefined
 * when no run of the job is in progress (no responders) or the replica did not answer in time.
 */
export async function agentView(messaging: Messaging, jobId: string): Promise<AgentViewReply | undefined> {
  return messaging
    .request(agentViewRpc(jobId), { jobId }, { timeoutMs: VIEW_TIMEOUT_MS })
    .catch(() => undefined);
}

/** The view of `jobId` if `token` opens it. */
async function viewFor(
  messaging: Messaging,
  jobId: string,
  token: string,
): Promise<AgentViewReply | undefined> {
  const view = await agentView(messaging, jobId);
  if (!view) return undefined;
  const a = Buffer.from(view.token);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b) ? view : undefined;
}

/**
 * GET /v2/agent/{id}/live/{token}: the live-view page of a running agent (the trace's
 * `activeBrowserSessions[].liveViewUrl`), view only. No API key: the token, random per run and
 * given only to the job's team (in its trace), is the credential; it opens the view and nothing else.
 */
@Controller('v2/agent')
export class AgentLiveViewController {
  constructor(
    private readonly messaging: Messaging,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get(':id/live/:token')
  @PublicRoute()
  async page(
    @Req() req: FastifyRequest,
    @Param() params: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { id, token } = validate(AgentLiveViewParams, params, 'path');
    if (!(await viewFor(this.messaging, id, token)))
      throw new ServiceError(
        ErrorCode.NOT_FOUND,
        'No agent run of this job is in progress, or wrong view token',
      );
    const nonce = randomBytes(16).toString('base64');
    void reply.headers(
      liveViewHeaders(nonce, this.config.WDS_LIVE_VIEW_FRAME_ANCESTORS, `${req.protocol}://${req.host}`),
    );
    return liveViewPage('view', nonce);
  }
}

/** `/v2/agent/<jobId>/live/<token>/ws`: the page's screencast WebSocket. */
const PATH = /^\/v2\/agent\/([0-9a-f-]{36})\/live\/([A-Za-z0-9_-]{43})\/ws\/?(?:\?.*)?$/i;

/**
 * The screencast WebSocket of an agent's live view: the token is checked against the run's view
 * (its replica names it) and the socket is spliced to that replica's session endpoint
 * (`/agents/<jobId>/live/<token>`), which checks it again. Anything else gets a 404.
 */
@Injectable()
export class AgentLiveViewSocket implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly open = new Set<Duplex>();

  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly messaging: Messaging,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapter.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const m = PATH.exec(req.url ?? '');
      if (m) void this.splice(req, socket, head, m[1].toLowerCase(), m[2]);
    });
  }

  onApplicationShutdown(): void {
    for (const s of this.open) s.destroy();
  }

  private async splice(req: IncomingMessage, socket: Duplex, head: Buffer, jobId: string, token: string) {
    socket.on('error', () => socket.destroy());
    const view = await viewFor(this.messaging, jobId, token);
    if (!view) {
      refuseUpgrade(socket);
      return;
    }
    spliceToReplica({
      req,
      socket,
      head,
      endpoint: new URL(view.endpoint),
      path: `/agents/${jobId}/live/${token}`,
      open: this.open,
      logger: this.logger,
      sessionId: jobId,
    });
  }
}
