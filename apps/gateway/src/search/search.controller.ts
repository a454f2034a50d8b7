import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { SearchRequest, type SearchResponse } from '@wds/contracts';
import type { UsageIdentity } from '../credits/credits.service';
import { CurrentTeam, Usage } from '../http/request-context';
import { validate } from '../http/validate';
import type { AuthenticatedTeam } from '../teams/team';
import { SearchWebUseCase } from './search-web.usecase';

/** POST /v2/search (Firecrawl v2): web, news and image results from the configured SearXNG. */
@Controller('v2/search')
export class SearchController {
  constructor(private readonly search: SearchWebUseCase) {}

  @Post()
  @HttpCode(200)
  async searchWeb(
    @CurrentTeam() team: AuthenticatedTeam,
    @Usage() usage: UsageIdentity,
    @Body() body: unknown,
  ): Promise<SearchResponse> {
    const request = validate(SearchRequest, body, 'body');
    return this.search.execute({ team, request, usage });
  }
}
