import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import {
  CreateBrowserRequest,
  ExecuteRequest,
  ListBrowsersQuery,
  SessionIdParams,
  type CreateBrowserResponse,
  type DeleteBrowserResponse,
  type ExecuteResult,
  type GetBrowserResponse,
  type ListBrowsersResponse,
} from '@wds/contracts';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../teams/team';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from '../credits/call-activity';
import { concurrencyLeaseOf, CurrentTeam } from '../http/request-context';
import { SessionSlotRoute } from '../limits/session-slot-route';
import { validate } from '../http/validate';
import { publicBaseUrl } from '../jobs/public-url';
import { BrowserSessions } from './browser-sessions.service';
import { executeResult } from './execute-result';
import { cdpUrl, liveViewUrls, playlistUrl, publicSession } from './session-urls';

/** Default timeout of execute (seconds) when the body names none. */
const EXECUTE_DEFAULT_TIMEOUT = 30;

/** Browser sessions: `/v2/browser*` and the newer name `/v2/interact*` (same handlers). */
@Controller(['v2/browser', 'v2/interact'])
export class BrowserController {
  constructor(
    private readonly sessions: BrowserSessions,
    private readonly activity: RecordCallActivity,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(200)
  async create(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<CreateBrowserResponse> {
    const options = validate(CreateBrowserRequest, body, 'body');
    const createdAt = Date.now();
    const session = await this.sessions.create({
      teamId: team.teamId,
      ttl: options.ttl,
      activityTtl: options.activityTtl,
      streamWebView: options.streamWebView,
      recordSession: options.recordSession,
      profile: options.profile,
      ...this.sessions.limits(team, concurrencyLeaseOf(req)),
    });
    await this.activity.execute({ team, endpoint: 'browser', id: session.id, target: null, createdAt });
    return {
      success: true,
      id: session.id,
      cdpUrl: cdpUrl(this.base(req), session),
      ...liveViewUrls(this.base(req), session),
      ...playlistUrl(this.base(req), session),
      expiresAt: session.expiresAt,
    };
  }

  @Get()
  async list(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Query() query: unknown,
  ): Promise<ListBrowsersResponse> {
    const { status } = validate(ListBrowsersQuery, query, 'query');
    const base = this.base(req);
    return {
      success: true,
      sessions: (await this.sessions.list(team.teamId, status)).map((s) => publicSession(base, s)),
    };
  }

  @Get(':sessionId')
  async get(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
  ): Promise<GetBrowserResponse> {
    const { sessionId } = validate(SessionIdParams, params, 'path');
    const s = await this.sessions.lookup(team.teamId, { sessionId });
    return {
      success: true,
      ...publicSession(this.base(req), s),
      expiresAt: s.expiresAt,
      ...(s.endedAt ? { endedAt: s.endedAt } : {}),
      ...(s.endReason ? { endReason: s.endReason } : {}),
      ...(s.durationMs !== undefined ? { sessionDurationMs: s.durationMs } : {}),
      ...(s.creditsBilled !== undefined ? { creditsBilled: s.creditsBilled } : {}),
    };
  }

  @Post(':sessionId/execute')
  @SessionSlotRoute()
  @HttpCode(200)
  async execute(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Body() body: unknown,
  ): Promise<ExecuteResult> {
    const { sessionId } = validate(SessionIdParams, params, 'path');
    const run = validate(ExecuteRequest, body, 'body');
    const session = await this.sessions.lookup(team.teamId, { sessionId });
    const reply = await this.sessions.execute(
      team.teamId,
      session,
      run.code,
      run.language,
      run.timeout ?? EXECUTE_DEFAULT_TIMEOUT,
    );
    // execute reports success for a failed script too; `error` says what went wrong (§2.3).
    return { ...executeResult(reply, run.language), success: true };
  }

  @Delete(':sessionId')
  @SessionSlotRoute()
  async delete(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
  ): Promise<DeleteBrowserResponse> {
    const { sessionId } = validate(SessionIdParams, params, 'path');
    const session = await this.sessions.lookup(team.teamId, { sessionId });
    const { session: ended } = await this.sessions.delete(team.teamId, session);
    return {
      success: true,
      status: ended.endReason === 'failed' ? 'failed' : 'stopped',
      cleanupQueued: true,
      sessionDurationMs: ended.durationMs ?? 0,
      creditsBilled: ended.creditsBilled ?? 0,
    };
  }

  private base(req: FastifyRequest): string {
    return publicBaseUrl(this.config.WDS_PUBLIC_BASE_URL, req);
  }
}
