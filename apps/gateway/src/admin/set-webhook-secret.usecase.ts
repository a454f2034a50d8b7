import { Injectable } from '@nestjs/common';
import { TeamsRepository } from '../teams/teams.repository';
import { isTeamId, teamNotFound } from './team-lookup';

/** Sets the HMAC secret that signs the team's webhook deliveries. */
@Injectable()
export class SetWebhookSecret {
  constructor(private readonly teams: TeamsRepository) {}

  async execute(teamId: string, secret: string): Promise<void> {
    if (!isTeamId(teamId) || !(await this.teams.setWebhookSecret(teamId, secret))) throw teamNotFound(teamId);
  }
}
