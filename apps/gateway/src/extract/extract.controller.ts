import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import type {
  AgentCancelResponse,
  AgentCreateResponse,
  AgentStatusResponse,
  ExtractCreateResponse,
  ExtractStatusResponse,
} from '@wds/contracts';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
import { ExtractUseCases } from './extract.usecases';

/** POST /v2/extract, GET /v2/extract/{id} (extract and agent jobs). 200, not 201: the SDKs want 200. */
@Controller('v2/extract')
export class ExtractController {
  constructor(private readonly extract: ExtractUseCases) {}

  @Post()
  @HttpCode(200)
  create(@CurrentTeam() team: AuthenticatedTeam, @Body() body: unknown): Promise<ExtractCreateResponse> {
    return this.extract.createExtract(team, body);
  }

  @Get(':id')
  status(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<ExtractStatusResponse> {
    return this.extract.extractStatus(team, params);
  }
}

/** POST /v2/agent, GET and DELETE /v2/agent/{id}. */
@Controller('v2/agent')
export class AgentController {
  constructor(private readonly extract: ExtractUseCases) {}

  @Post()
  @HttpCode(200)
  create(@CurrentTeam() team: AuthenticatedTeam, @Body() body: unknown): Promise<AgentCreateResponse> {
    return this.extract.createAgent(team, body);
  }

  @Get(':id')
  status(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<AgentStatusResponse> {
    return this.extract.agentStatus(team, params);
  }

  @Delete(':id')
  cancel(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<AgentCancelResponse> {
    return this.extract.cancelAgent(team, params);
  }
}
