import { Controller, Get, Inject, Injectable, Param, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  agentViewRpc,
  AgentLiveViewParams,
  ErrorCode,
  sameToken,
  ServiceError,
  type AgentViewReply,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicRoute } from '../auth/public-route';
import { serveLiveViewPage } from '../browser/live-view-page';
import { SessionSocket, type SessionUpgrade } from '../browser/session-socket';
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
  return sameToken(view.token, token) ? view : undefined;
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
    return serveLiveViewPage(req, reply, 'view', this.config.WDS_LIVE_VIEW_FRAME_ANCESTORS);
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
export class AgentLiveViewSocket extends SessionSocket {
  /** Not asked of a browser session (resolve is the agent view's); an agent's view is view only. */
  protected readonly purpose = 'live';

  constructor(adapter: HttpAdapterHost, messaging: Messaging, @Inject(LOGGER) logger: Logger) {
    super(adapter, messaging, logger);
  }

  protected match(url: string): SessionUpgrade | undefined {
    const m = PATH.exec(url);
    return m ? { sessionId: m[1].toLowerCase(), token: m[2] } : undefined;
  }

  protected override async resolve({ sessionId, token }: SessionUpgrade): Promise<URL | undefined> {
    const view = await viewFor(this.messaging, sessionId, token);
    return view ? new URL(view.endpoint) : undefined;
  }

  protected route(_req: unknown, { sessionId, token }: SessionUpgrade) {
    return { path: `/agents/${sessionId}/live/${token}` };
  }
}
