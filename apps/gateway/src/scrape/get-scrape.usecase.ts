import { Injectable } from '@nestjs/common';
import { ScrapeIdParams, type ScrapeResponse } from '@wds/contracts';
import { ScrapeClient } from '@wds/jobs';
import type { AuthenticatedTeam } from '../teams/team';
import { validate } from '../http/validate';

/** GET /v2/scrape/{id}: the stored document of one of the team's scrapes (another team's: 403). */
@Injectable()
export class GetScrapeUseCase {
  constructor(private readonly scraper: ScrapeClient) {}

  async execute(team: AuthenticatedTeam, params: unknown): Promise<ScrapeResponse> {
    const { id } = validate(ScrapeIdParams, params, 'path');
    const reply = await this.scraper.get(team.teamId, id);
    return { success: true, data: await this.scraper.document(team.teamId, reply) };
  }
}
