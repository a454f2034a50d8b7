import { Injectable } from '@nestjs/common';
import { generateApiKey } from '../auth/api-key';
import { TeamsRepository } from '../teams/teams.repository';
import { requireTeam } from './team-lookup';

/** Issues another key for a team; the plaintext is returned once and only its hash is stored. */
@Injectable()
export class CreateApiKey {
  constructor(private readonly teams: TeamsRepository) {}

  async execute(teamId: string, name?: string): Promise<{ apiKey: string }> {
    await requireTeam(this.teams, teamId);
    const key = generateApiKey();
    await this.teams.insertKey({ prefix: key.prefix, sha256: key.sha256, teamId, name });
    return { apiKey: key.key };
  }
}
