import { Injectable } from '@nestjs/common';
import type { AdminFeaturesRequest } from '@wds/contracts';
import { AuthInvalidation } from '../auth/auth-invalidation';
import { TeamsRepository, type TeamFeatures } from '../teams/teams.repository';
import { isTeamId, teamNotFound } from './team-lookup';

/**
 * Enables or disables a team's enterprise features and zero data retention (api-v2.md: "requires
 * enablement by support"; the operator is support). Like limits, the flags apply on each replica's
 * next request for the team (its cached entries are dropped).
 */
@Injectable()
export class SetTeamFeatures {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly invalidation: AuthInvalidation,
  ) {}

  async execute(teamId: string, features: AdminFeaturesRequest): Promise<TeamFeatures> {
    const updated = isTeamId(teamId) ? await this.teams.updateFeatures(teamId, features) : undefined;
    if (!updated) throw teamNotFound(teamId);
    await this.invalidation.broadcast({ kind: 'team', teamId });
    return updated;
  }
}
