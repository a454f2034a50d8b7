import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  ServiceError,
  type AdminCreateTeamRequest,
  type AdminCreditsRequest,
  type AdminLimitsRequest,
} from '@wds/contracts';
import { Database } from '@wds/database';
import { generateApiKey } from '../auth/api-key';
import { AuthInvalidation } from '../auth/auth-invalidation';
import { creationGrantKey } from '../bootstrap/ensure-bootstrap-team.usecase';
import { CreditsService } from '../credits/credits.service';
import { TeamsRepository } from '../teams/teams.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function teamNotFound(teamId: string): ServiceError {
  return new ServiceError(ErrorCode.NOT_FOUND, `Team ${teamId} not found`);
}

/** Team ids are uuids; anything else cannot name a team (and must not reach a uuid column). */
async function requireTeam(teams: TeamsRepository, teamId: string): Promise<void> {
  if (!UUID.test(teamId) || !(await teams.teamExists(teamId))) throw teamNotFound(teamId);
}

/**
 * Creates a team, its first key and its initial credits. The credits are granted first under the
 * new team's id (idempotent), so a billing outage fails the call before anything exists.
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
      const id = await this.teams.createTeam({ name: cmd.name, limits: cmd.limits }, q);
      if (cmd.credits) await this.credits.grant(id, cmd.credits, 'initial credits', creationGrantKey(id));
      await this.teams.insertKey({ prefix: key.prefix, sha256: key.sha256, teamId: id, name: 'initial' }, q);
      return id;
    });
    return { teamId, apiKey: key.key };
  }
}

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

/** Revokes in the database first, then clears every replica's cache before answering. */
@Injectable()
export class RevokeApiKey {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly invalidation: AuthInvalidation,
  ) {}

  async execute(prefix: string): Promise<void> {
    if (!(await this.teams.revokeKey(prefix))) throw new ServiceError(ErrorCode.NOT_FOUND, `API key ${prefix} not found`);
    await this.invalidation.broadcast({ kind: 'key', prefix });
  }
}

@Injectable()
export class AdjustCredits {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly credits: CreditsService,
  ) {}

  /** `idempotencyKey` comes from the Idempotency-Key header; without one every call counts. */
  async execute(teamId: string, cmd: AdminCreditsRequest, idempotencyKey?: string): Promise<{ balance: number }> {
    if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > 200)) {
      throw new ServiceError(ErrorCode.BAD_REQUEST, 'Idempotency-Key header: 1 to 200 characters');
    }
    await requireTeam(this.teams, teamId);
    const key = `admin:${teamId}:${idempotencyKey ?? randomUUID()}`;
    return { balance: await this.credits.grant(teamId, cmd.amount, cmd.reason, key) };
  }
}

/** New limits apply on each replica's next request for the team (its cached entries are dropped). */
@Injectable()
export class SetTeamLimits {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly invalidation: AuthInvalidation,
  ) {}

  async execute(teamId: string, limits: AdminLimitsRequest): Promise<void> {
    if (!UUID.test(teamId) || !(await this.teams.updateLimits(teamId, limits))) throw teamNotFound(teamId);
    await this.invalidation.broadcast({ kind: 'team', teamId });
  }
}

@Injectable()
export class SetWebhookSecret {
  constructor(private readonly teams: TeamsRepository) {}

  async execute(teamId: string, secret: string): Promise<void> {
    if (!UUID.test(teamId) || !(await this.teams.setWebhookSecret(teamId, secret))) throw teamNotFound(teamId);
  }
}
