import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  AgentListQuery,
  AgentRequest,
  AgentSnapshotParams,
  AgentThreadParams,
  AgentThreadQuery,
  AgentTraceQuery,
  ExtractRequest,
  JobIdParams,
  type AgentCancelResponse,
  type AgentCreateResponse,
  type AgentListResponse,
  type AgentSnapshotResponse,
  type AgentThreadResponse,
  type AgentTraceResponse,
  type AgentStatusResponse,
  type ExtractCreateResponse,
  type ExtractStatusResponse,
} from '@wds/contracts';
import { APP_CONFIG } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import type { UsageIdentity } from '../credits/credits.service';
import { CurrentTeam, RequestOrigin, Usage } from '../http/request-context';
import { publicBaseUrl } from '../jobs/public-url';
import { validate } from '../http/validate';
import type { AuthenticatedTeam } from '../teams/team';
import { ExtractUseCases } from './extract.usecases';

/** POST /v2/extract, GET /v2/extract/{id} (extract and agent jobs). 200, not 201: the SDKs want 200. */
@Controller('v2/extract')
export class ExtractController {
  constructor(private readonly extract: ExtractUseCases) {}

  @Post()
  @HttpCode(200)
  create(
    @CurrentTeam() team: AuthenticatedTeam,
    @Usage() usage: UsageIdentity,
    @Body() body: unknown,
  ): Promise<ExtractCreateResponse> {
    return this.extract.createExtract(team, validate(ExtractRequest, body, 'body'), usage);
  }

  @Get(':id')
  status(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<ExtractStatusResponse> {
    return this.extract.extractStatus(team, validate(JobIdParams, params, 'path').id);
  }
}

/**
 * POST and GET /v2/agent (start, list), GET and DELETE /v2/agent/{id}, GET /v2/agent/{id}/trace,
 * GET /v2/agent/{id}/snapshots/{snapshotId} and GET /v2/agent/threads/{threadId}.
 */
@Controller('v2/agent')
export class AgentController {
  constructor(
    private readonly extract: ExtractUseCases,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get()
  list(
    @CurrentTeam() team: AuthenticatedTeam,
    @Query() query: unknown,
    @RequestOrigin() origin: string,
  ): Promise<AgentListResponse> {
    return this.extract.listAgents(
      team,
      validate(AgentListQuery, query, 'query'),
      publicBaseUrl(this.config.WDS_PUBLIC_BASE_URL, origin),
    );
  }

  @Get('threads/:threadId')
  thread(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Query() query: unknown,
  ): Promise<AgentThreadResponse> {
    const { includeData } = validate(AgentThreadQuery, query, 'query');
    return this.extract.agentThread(
      team,
      validate(AgentThreadParams, params, 'path').threadId,
      includeData === 'true',
    );
  }

  @Get(':id/trace')
  trace(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Query() query: unknown,
    @RequestOrigin() origin: string,
  ): Promise<AgentTraceResponse> {
    const { liveView } = validate(AgentTraceQuery, query, 'query');
    return this.extract.agentTrace(
      team,
      validate(JobIdParams, params, 'path').id,
      liveView === 'true',
      publicBaseUrl(this.config.WDS_PUBLIC_BASE_URL, origin),
    );
  }

  @Get(':id/snapshots/:snapshotId')
  snapshot(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<AgentSnapshotResponse> {
    const { id, snapshotId } = validate(AgentSnapshotParams, params, 'path');
    return this.extract.agentSnapshot(team, id, snapshotId);
  }

  @Post()
  @HttpCode(200)
  create(
    @CurrentTeam() team: AuthenticatedTeam,
    @Usage() usage: UsageIdentity,
    @Body() body: unknown,
  ): Promise<AgentCreateResponse> {
    return this.extract.createAgent(team, validate(AgentRequest, body, 'body'), usage);
  }

  @Get(':id')
  status(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<AgentStatusResponse> {
    return this.extract.agentStatus(team, validate(JobIdParams, params, 'path').id);
  }

  @Delete(':id')
  cancel(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<AgentCancelResponse> {
    return this.extract.cancelAgent(team, validate(JobIdParams, params, 'path').id);
  }
}
