import { RPC } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';
import { SecretSource } from './team-secrets';

/** Asks the gateway, which owns teams, for a team's webhook secret. */
export class GatewaySecretSource extends SecretSource {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs = 3000,
  ) {
    super();
  }

  async fetch(teamId: string): Promise<string | null> {
    const reply = await this.messaging.request(RPC.webhookSecret, { teamId }, { timeoutMs: this.timeoutMs });
    return reply.secret;
  }
}
