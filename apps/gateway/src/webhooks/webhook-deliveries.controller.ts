import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  RPC,
  WebhookDeliveriesQuery,
  WebhookRequeueRequest,
  type WebhookDeliveriesResponse,
  type WebhookRequeueResponse,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam } from '../http/request-context';
import { validate } from '../http/validate';

/**
 * GET /v2/webhooks/deliveries?jobId=: the caller's delivery log of one job, kept by the webhooks
 * service; POST /v2/webhooks/deliveries/resend sends the job's given-up deliveries again.
 */
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

  /** Another team's job, or a job with no failed delivery, re-queues nothing (0, not an error). */
  @Post('deliveries/resend')
  @HttpCode(200)
  async resend(
    @CurrentTeam() team: AuthenticatedTeam,
    @Body() body: unknown,
  ): Promise<WebhookRequeueResponse> {
    const { jobId, webhookIds } = validate(WebhookRequeueRequest, body, 'body');
    const reply = await this.messaging.request(RPC.webhookDeliveriesRequeue, {
      teamId: team.teamId,
      jobId,
      ...(webhookIds ? { webhookIds } : {}),
    });
    return { success: true, ...reply };
  }
}
