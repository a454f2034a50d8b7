import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { ScrapeResponse } from '@wds/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
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
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<ScrapeResponse | string> {
    const answer = await this.scrapePage.execute({ req, team, body });
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
