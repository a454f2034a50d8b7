import { browserSessionCredits, RPC, type ActivityEndpoint } from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

/**
 * A session's credits through the ledger: the whole ttl is held at create (402 when short), and the
 * real cost — 2 credits per minute by the second, at least one minute — is settled when it ends.
 * Settling is idempotent per reservation in billing, and the session row records when it was, so
 * whatever ends a session (DELETE, ttl, inactivity, drain, a lost replica) it is charged once.
 */
export class SessionBilling {
  constructor(private readonly messaging: Messaging) {}

  async hold(
    teamId: string,
    sessionId: string,
    ttlSeconds: number,
    endpoint: ActivityEndpoint,
  ): Promise<string> {
    const reply = await this.messaging.request(RPC.creditsReserve, {
      teamId,
      requestId: `browser-session:${sessionId}`,
      amount: browserSessionCredits(ttlSeconds * 1000),
      endpoint,
      // Held a little beyond the ttl: the settle normally comes first.
      ttlMs: (ttlSeconds + 600) * 1000,
    });
    return reply.reservationId;
  }

  async settle(reservationId: string, credits: number): Promise<void> {
    await this.messaging.request(RPC.creditsSettle, { reservationId, actual: credits });
  }
}
