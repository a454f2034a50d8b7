import { ErrorCode, ServiceError } from '@wds/contracts';
import type { TeamsRepository } from '../teams/teams.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Team ids are uuids; anything else cannot name a team (and must not reach a uuid column). */
export function isTeamId(teamId: string): boolean {
  return UUID.test(teamId);
}

export function teamNotFound(teamId: string): ServiceError {
  return new ServiceError(ErrorCode.NOT_FOUND, `Team ${teamId} not found`);
}

export async function requireTeam(teams: TeamsRepository, teamId: string): Promise<void> {
  if (!isTeamId(teamId) || !(await teams.teamExists(teamId))) throw teamNotFound(teamId);
}
