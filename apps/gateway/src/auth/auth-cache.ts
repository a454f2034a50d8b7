import type { AuthenticatedTeam } from '../teams/team';

interface Entry {
  team: AuthenticatedTeam;
  keySha256: Buffer;
  expiresAt: number;
}

/**
 * Short-lived cache of positive key lookups. Invalidations bump a generation counter so a lookup
 * that started before a revocation cannot put the revoked key back into the cache when it finishes.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private gen = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  get(prefix: string): Entry | undefined {
    const e = this.entries.get(prefix);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(prefix);
      return undefined;
    }
    return e;
  }

  generation(): number {
    return this.gen;
  }

  /** Stores a lookup result unless an invalidation happened since `generation` was read. */
  setIfCurrent(prefix: string, team: AuthenticatedTeam, keySha256: Buffer, generation: number): void {
    if (generation !== this.gen || this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(prefix, { team, keySha256, expiresAt: this.now() + this.ttlMs });
  }

  invalidateKey(prefix: string): void {
    this.gen++;
    this.entries.delete(prefix);
  }

  invalidateTeam(teamId: string): void {
    this.gen++;
    for (const [prefix, e] of this.entries) if (e.team.teamId === teamId) this.entries.delete(prefix);
  }
}
