import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { DocsSearchRequest, type DocsSearchResponse } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam, requestIdOf } from '../http/request-context';
import { validate } from '../http/validate';
import { SearchDocs } from './search-docs.usecase';

/** POST /v2/support/docs-search: answers about this platform from its published reference. */
@Controller('v2/support/docs-search')
export class DocsSearchController {
  constructor(private readonly search: SearchDocs) {}

  @Post()
  @HttpCode(200)
  ask(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<DocsSearchResponse> {
    const { question } = validate(DocsSearchRequest, body, 'body');
    return this.search.execute({
      teamId: team.teamId,
      apiKey: team.keyPrefix,
      requestId: requestIdOf(req) ?? '',
      question,
    });
  }
}
