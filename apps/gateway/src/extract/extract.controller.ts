import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  AgentRequest,
  ExtractRequest,
  JobIdParams,
  type AgentCancelResponse,
  type AgentCreateResponse,
  type AgentStatusResponse,
  type ExtractCreateResponse,
  type ExtractStatusResponse,
} from '@wds/contracts';
import { CurrentTeam } from '../http/request-context';
import { validate } from '../http/validate';
import type { AuthenticatedTeam } from '../teams/team';
import { ExtractUseCases } from './extract.usecases';

/** POST /v2/extract, GET /v2/extract/{id} (extract and agent jobs). 200, not 201: the SDKs want 200. */
@Controller('v2/extract')
export class ExtractController {
  constructor(private readonly extract: ExtractUseCases) {}

  @Post()
  @HttpCode(200)
  create(@CurrentTeam() team: AuthenticatedTeam, @Body() body: unknown): Promise<ExtractCreateResponse> {
    return this.extract.createExtract(team, validate(ExtractRequest, body, 'body'));
  }

  @Get(':id')
  status(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<ExtractStatusResponse> {
    return this.extract.extractStatus(team, validate(JobIdParams, params, 'path').id);
  }
}

/** POST /v2/agent, GET and DELETE /v2/agent/{id}. */
@Controller('v2/agent')
export class AgentController {
  constructor(private readonly extract: ExtractUseCases) {}

  @Post()
  @HttpCode(200)
  create(@CurrentTeam() team: AuthenticatedTeam, @Body() body: unknown): Promise<AgentCreateResponse> {
    return this.extract.createAgent(team, validate(AgentRequest, body, 'body'));
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
