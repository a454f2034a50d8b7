import { Injectable } from '@nestjs/common';
import type { AdminCreateTeamRequest } from '@wds/contracts';
import { Database } from '@wds/database';
import { generateApiKey } from '../auth/api-key';
import { creationGrantKey } from '../bootstrap/ensure-bootstrap-team.usecase';
import { CreditsService } from '../credits/credits.service';
import { TeamsRepository } from '../teams/teams.repository';

/**
 * Creates a team, its first key and its initial credits. The credits are granted first under the
 * new team's id (idempotent) inside the team's transaction, so a billing outage fails the call
 * before anything exists.
 */
@Injectable()
export class CreateTeam {
  constructor(
    private readonly db: Database,
    private readonly teams: TeamsRepository,
    private readonly credits: CreditsService,
  ) {}

  async execute(cmd: AdminCreateTeamRequest): Promise<{ teamId: string; apiKey: string }> {
    const key = generateApiKey();
    const teamId = await this.db.tx(async (q) => {
      const id = await this.teams.createTeam(
        {
          name: cmd.name,
          limits: cmd.limits,
          enterprise: cmd.enterprise,
          zeroDataRetention: cmd.zeroDataRetention,
        },
        q,
      );
      if (cmd.credits) await this.credits.grant(id, cmd.credits, 'initial credits', creationGrantKey(id));
      await this.teams.insertKey({ prefix: key.prefix, sha256: key.sha256, teamId: id, name: 'initial' }, q);
      return id;
    });
    return { teamId, apiKey: key.key };
  }
}
