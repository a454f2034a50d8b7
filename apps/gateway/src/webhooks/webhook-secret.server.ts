import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { RPC, type WebhookSecretReply } from '@wds/contracts';
import { Database } from '@wds/database';
import { Messaging } from '@wds/messaging';
import { isTeamId } from '../admin/team-lookup';

/**
 * Serves `wds.gateway.v1.teams.webhook-secret` to the webhooks service: the gateway owns teams and
 * their secrets (`PUT /admin/v1/teams/{id}/webhook-secret`, `WDS_BOOTSTRAP_WEBHOOK_SECRET`).
 */
@Injectable()
export class WebhookSecretServer implements OnApplicationBootstrap {
  constructor(
    private readonly messaging: Messaging,
    private readonly db: Database,
  ) {}

  onApplicationBootstrap(): void {
    this.messaging.serve(RPC.webhookSecret, ({ teamId }) => this.secretOf(teamId));
  }

  async secretOf(teamId: string): Promise<WebhookSecretReply> {
    if (!isTeamId(teamId)) return { secret: null };
    const { rows } = await this.db.query<{ webhook_secret: string | null }>(
      'SELECT webhook_secret FROM gateway.teams WHERE id = $1',
      [teamId],
    );
    return { secret: rows[0]?.webhook_secret || null };
  }
}
