import { Injectable } from '@nestjs/common';
import type { AdminLimitsRequest } from '@wds/contracts';
import { AuthInvalidation } from '../auth/auth-invalidation';
import { TeamsRepository } from '../teams/teams.repository';
import { isTeamId, teamNotFound } from './team-lookup';

/** New limits apply on each replica's next request for the team (its cached entries are dropped). */
@Injectable()
export class SetTeamLimits {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly invalidation: AuthInvalidation,
  ) {}

  async execute(teamId: string, limits: AdminLimitsRequest): Promise<void> {
    if (!isTeamId(teamId) || !(await this.teams.updateLimits(teamId, limits))) throw teamNotFound(teamId);
    await this.invalidation.broadcast({ kind: 'team', teamId });
  }
}
