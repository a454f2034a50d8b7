import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CRAWL_RPC, CREDIT_PRICES, MapLink, MapRequest, type MapResponse } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { z } from 'zod';
import type { AuthenticatedTeam } from '../teams/team';
import { RecordCallActivity } from '../credits/call-activity';
import { CreditsService, type UsageIdentity } from '../credits/credits.service';
import { CurrentTeam, Usage } from '../http/request-context';
import { validate } from '../http/validate';

const MAP_CREDITS = CREDIT_PRICES.map;

/** POST /v2/map (Firecrawl v2): site URLs from sitemaps and links, discovered by the crawler. */
@Controller('v2/map')
export class MapController {
  constructor(
    private readonly messaging: Messaging,
    private readonly credits: CreditsService,
    private readonly activity: RecordCallActivity,
  ) {}

  @Post()
  @HttpCode(200)
  map(
    @CurrentTeam() team: AuthenticatedTeam,
    @Usage() usage: UsageIdentity,
    @Body() body: unknown,
  ): Promise<MapResponse> {
    const request = validate(MapRequest, body, 'body');
    return this.credits.charge(
      { usage, teamId: team.teamId, endpoint: 'map', estimate: MAP_CREDITS, apiKey: team.keyPrefix },
      async () => {
        const createdAt = Date.now();
        const reply = await this.messaging.request(
          CRAWL_RPC.map,
          { teamId: team.teamId, request },
          { timeoutMs: (request.timeout ?? 60_000) + 15_000 },
        );
        const links = z
          .array(MapLink)
          .parse(JSON.parse(gunzipSync(Buffer.from(reply.linksGz, 'base64')).toString()));
        // A map creates no job: its activity record gets an id of its own.
        await this.activity.execute({
          team,
          endpoint: 'map',
          id: randomUUID(),
          target: request.url,
          createdAt,
        });
        return { result: { success: true as const, links }, credits: MAP_CREDITS };
      },
    );
  }
}
