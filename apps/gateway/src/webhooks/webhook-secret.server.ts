import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RPC, type RpcRequestParsed, type WebhookSecretReply } from '@wds/contracts';
import { Database } from '@wds/database';
import { rpc } from '@wds/messaging';
import { isTeamId } from '../admin/team-lookup';

/**
 * Serves `wds.gateway.v1.teams.webhook-secret` to the webhooks service: the gateway owns teams and
 * their secrets (`PUT /admin/v1/teams/{id}/webhook-secret`, `WDS_BOOTSTRAP_WEBHOOK_SECRET`). A
 * `@MessagePattern` handler of the WDS transport (ADR 0001): no HTTP route, so the HTTP guards and
 * interceptors of the gateway do not apply to it.
 */
@Controller()
export class WebhookSecretServer {
  constructor(private readonly db: Database) {}

  @MessagePattern(...rpc(RPC.webhookSecret))
  webhookSecret(
    @Payload() { teamId }: RpcRequestParsed<typeof RPC.webhookSecret>,
  ): Promise<WebhookSecretReply> {
    return this.secretOf(teamId);
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
