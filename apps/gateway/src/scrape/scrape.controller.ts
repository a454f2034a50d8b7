import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { ScrapeResponse } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { CurrentTeam } from '../http/request-context';
import { GetScrapeUseCase } from './get-scrape.usecase';
import { ScrapePageUseCase } from './scrape-page.usecase';

@Controller('v2/scrape')
export class ScrapeController {
  constructor(
    private readonly scrapePage: ScrapePageUseCase,
    private readonly getScrape: GetScrapeUseCase,
  ) {}

  @Post()
  @HttpCode(200)
  scrape(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<ScrapeResponse> {
    return this.scrapePage.execute({ req, team, body });
  }

  @Get(':id')
  get(@CurrentTeam() team: AuthenticatedTeam, @Param() params: unknown): Promise<ScrapeResponse> {
    return this.getScrape.execute(team, params);
  }
}
