import { Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { AuthInvalidation } from '../auth/auth-invalidation';
import { TeamsRepository } from '../teams/teams.repository';

/** Revokes in the database first, then clears every replica's cache before answering. */
@Injectable()
export class RevokeApiKey {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly invalidation: AuthInvalidation,
  ) {}

  async execute(prefix: string): Promise<void> {
    if (!(await this.teams.revokeKey(prefix)))
      throw new ServiceError(ErrorCode.NOT_FOUND, `API key ${prefix} not found`);
    await this.invalidation.broadcast({ kind: 'key', prefix });
  }
}
