import { Injectable } from '@nestjs/common';
import { SCRAPE_RPC, ScrapeIdParams, type ScrapeResponse } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { AuthenticatedTeam } from '../auth/authenticated-team';
import { validate } from '../http/validate';
import { ScrapeDocumentReader } from './scrape-document.reader';

/** GET /v2/scrape/{id}: the stored document of one of the team's scrapes (another team's: 403). */
@Injectable()
export class GetScrapeUseCase {
  constructor(
    private readonly messaging: Messaging,
    private readonly documents: ScrapeDocumentReader,
  ) {}

  async execute(team: AuthenticatedTeam, params: unknown): Promise<ScrapeResponse> {
    const { id } = validate(ScrapeIdParams, params, 'path');
    const reply = await this.messaging.request(SCRAPE_RPC.get, { teamId: team.teamId, jobId: id });
    return { success: true, data: await this.documents.resolve(team.teamId, reply) };
  }
}
