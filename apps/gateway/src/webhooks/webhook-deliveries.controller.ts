import { Controller, Get, Query } from '@nestjs/common';
import { RPC, WebhookDeliveriesQuery, type WebhookDeliveriesResponse } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam } from '../http/request-context';
import { validate } from '../http/validate';

/** GET /v2/webhooks/deliveries?jobId=: the caller's delivery log of one job, kept by the webhooks service. */
@Controller('v2/webhooks')
export class WebhookDeliveriesController {
  constructor(private readonly messaging: Messaging) {}

  @Get('deliveries')
  async list(
    @CurrentTeam() team: AuthenticatedTeam,
    @Query() query: unknown,
  ): Promise<WebhookDeliveriesResponse> {
    const { jobId, limit, cursor } = validate(WebhookDeliveriesQuery, query, 'query');
    const reply = await this.messaging.request(RPC.webhookDeliveriesList, {
      teamId: team.teamId,
      jobId,
      limit,
      cursor,
    });
    return { success: true, ...reply };
  }
}
