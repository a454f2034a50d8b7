import { Inject, Injectable } from '@nestjs/common';
import { Database } from '@wds/database';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { hashApiKey, lookupPrefix, sameHash } from '../auth/api-key';
import { CreditsService } from '../credits/credits.service';
import { TeamsRepository } from '../teams/teams.repository';

export interface BootstrapTeamCommand {
  apiKey: string;
  webhookSecret?: string;
}

export const BOOTSTRAP_TEAM_NAME = 'bootstrap';

/** The idempotency key of a team's creation grant: whoever retries it, it counts once. */
export function creationGrantKey(teamId: string): string {
  return `team-created:${teamId}`;
}

/**
 * Makes sure the team "bootstrap" exists and owns the operator's key. Replicas starting together
 * serialise on an advisory lock; the unique bootstrap flag keeps it to one team across restarts.
 * Returns the team id.
 */
@Injectable()
export class EnsureBootstrapTeam {
  constructor(
    private readonly db: Database,
    private readonly teams: TeamsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(cmd: BootstrapTeamCommand): Promise<{ teamId: string; created: boolean; keyPrefix: string }> {
    const prefix = lookupPrefix(cmd.apiKey);
    const sha256 = hashApiKey(cmd.apiKey);
    const result = await this.db.tx(async (q) => {
      await q.query("SELECT pg_advisory_xact_lock(hashtext('gateway.bootstrap-team'))");
      let teamId = await this.teams.findBootstrapTeam(q);
      const created = teamId === undefined;
      teamId ??= await this.teams.createTeam({ name: BOOTSTRAP_TEAM_NAME, isBootstrap: true }, q);
      if (cmd.webhookSecret !== undefined) await this.teams.setWebhookSecret(teamId, cmd.webhookSecret, q);
      const inserted = await this.teams.insertKey(
        { prefix, sha256, teamId, name: 'WDS_BOOTSTRAP_API_KEY' },
        q,
      );
      return { teamId, created, inserted };
    });
    if (!result.inserted) {
      const existing = await this.teams.findKey(prefix);
      if (!existing || existing.team.teamId !== result.teamId || !sameHash(existing.keySha256, sha256)) {
        this.logger.error(
          { keyPrefix: prefix },
          'WDS_BOOTSTRAP_API_KEY collides with another key; it was not added',
        );
      } else if (existing.revoked) {
        this.logger.warn(
          { keyPrefix: prefix },
          'WDS_BOOTSTRAP_API_KEY was revoked through the admin API; it stays revoked',
        );
      }
    }
    return { teamId: result.teamId, created: result.created, keyPrefix: prefix };
  }
}

/** Grants the bootstrap credits once, however often it is called (idempotency key per team). */
@Injectable()
export class GrantCreationCredits {
  constructor(private readonly credits: CreditsService) {}

  async execute(teamId: string, amount: number): Promise<void> {
    if (amount <= 0) return;
    await this.credits.grant(teamId, amount, 'initial credits', creationGrantKey(teamId));
  }
}
