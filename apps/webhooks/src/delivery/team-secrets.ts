/** Where team secrets come from (the gateway's RPC in production). */
export abstract class SecretSource {
  /** The team's webhook secret, null when it has none; throws when the owner cannot be asked. */
  abstract fetch(teamId: string): Promise<string | null>;
}

/**
 * Team secrets cached for `ttlMs`, so a burst of deliveries asks the gateway once per team; a new
 * secret set with the admin API takes effect within that time. Concurrent misses share one request.
 */
export class TeamSecrets {
  private readonly cache = new Map<string, { secret: string | null; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<string | null>>();

  constructor(
    private readonly source: SecretSource,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(teamId: string): Promise<string | null> {
    const hit = this.cache.get(teamId);
    if (hit && hit.expiresAt > this.now()) return hit.secret;
    let pending = this.inflight.get(teamId);
    if (!pending) {
      pending = this.source.fetch(teamId).finally(() => this.inflight.delete(teamId));
      this.inflight.set(teamId, pending);
    }
    const secret = await pending;
    this.cache.set(teamId, { secret, expiresAt: this.now() + this.ttlMs });
    // Bounded: entries of teams that stopped receiving webhooks must not accumulate forever.
    if (this.cache.size > 10_000) this.evictExpired();
    return secret;
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [team, entry] of this.cache) if (entry.expiresAt <= now) this.cache.delete(team);
  }
}
