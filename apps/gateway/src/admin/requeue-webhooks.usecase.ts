import { Injectable } from '@nestjs/common';
import { RPC, type AdminWebhookRequeueRequest, type WebhookRequeueResponse } from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { TeamsRepository } from '../teams/teams.repository';
import { requireTeam } from './team-lookup';

/**
 * POST /admin/v1/teams/{teamId}/webhook-deliveries/resend: the team's deliveries that gave up
 * (within the window, of one job or all) are sent again by the webhooks service.
 */
@Injectable()
export class RequeueWebhooks {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly messaging: Messaging,
  ) {}

  async execute(teamId: string, request: AdminWebhookRequeueRequest): Promise<WebhookRequeueResponse> {
    await requireTeam(this.teams, teamId);
    const reply = await this.messaging.request(RPC.webhookDeliveriesRequeue, {
      teamId,
      ...(request.jobId ? { jobId: request.jobId } : {}),
      ...(request.failedSince ? { failedSince: request.failedSince } : {}),
      ...(request.failedUntil ? { failedUntil: request.failedUntil } : {}),
    });
    return { success: true, ...reply };
  }
}
