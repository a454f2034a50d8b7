import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ScrapeRequest, type ScrapeResponse } from '@wds/contracts';
import type { FastifyReply } from 'fastify';
import type { UsageIdentity } from '../credits/credits.service';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam, Usage } from '../http/request-context';
import { validate } from '../http/validate';
import { GetScrapeUseCase } from './get-scrape.usecase';
import { ScrapePageUseCase, SerializedAnswer } from './scrape-page.usecase';

@Controller('v2/scrape')
export class ScrapeController {
  constructor(
    private readonly scrapePage: ScrapePageUseCase,
    private readonly getScrape: GetScrapeUseCase,
  ) {}

  @Post()
  @HttpCode(200)
  async scrape(
    @Res({ passthrough: true }) res: FastifyReply,
    @CurrentTeam() team: AuthenticatedTeam,
    @Usage() usage: UsageIdentity,
    @Body() body: unknown,
  ): Promise<ScrapeResponse | string> {
    const options = validate(ScrapeRequest, body, 'body');
    const answer = await this.scrapePage.execute({ team, options, usage });
    if (!(answer instanceof SerializedAnswer)) return answer;
    // A string with a JSON content type is sent as it is.
    void res.type('application/json; charset=utf-8');
    return answer.json;
  }

  @Get(':id')
  get(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<ScrapeResponse> {
    return this.getScrape.execute(team, params);
  }
}
