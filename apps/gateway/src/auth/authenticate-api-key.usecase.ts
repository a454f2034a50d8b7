import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { LOGGER } from '@wds/service-kit';
import type { Logger } from '@wds/observability';
import { TeamsRepository } from '../teams/teams.repository';
import { hashApiKey, isPlausibleApiKey, lookupPrefix, sameHash } from './api-key';
import { AuthCache } from './auth-cache';
import type { AuthenticatedTeam } from '../teams/team';

function unauthorized(message: string): ServiceError {
  return new ServiceError(ErrorCode.UNAUTHORIZED, message);
}

/**
 * Bearer API key → team. Positive answers are cached briefly; revocations clear the cache on every
 * replica (see ApiKeyInvalidation), so a revoked key stops working at once.
 */
@Injectable()
export class AuthenticateApiKey {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly cache: AuthCache,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(key: string | undefined): Promise<AuthenticatedTeam> {
    if (key === undefined)
      throw unauthorized('Unauthorized: missing or malformed Authorization header (Bearer <API key>)');
    if (!isPlausibleApiKey(key)) throw unauthorized('Unauthorized: invalid API key');
    const prefix = lookupPrefix(key);
    const hash = hashApiKey(key);

    const cached = this.cache.get(prefix);
    if (cached) {
      if (!sameHash(cached.keySha256, hash)) throw unauthorized('Unauthorized: invalid API key');
      return cached.team;
    }

    const generation = this.cache.generation();
    const found = await this.teams.findKey(prefix);
    if (!found || !sameHash(found.keySha256, hash)) throw unauthorized('Unauthorized: invalid API key');
    if (found.revoked) throw unauthorized('Unauthorized: this API key has been revoked');
    this.cache.setIfCurrent(prefix, found.team, found.keySha256, generation);
    this.teams
      .touchKey(prefix)
      .catch((err: unknown) => this.logger.warn({ err, prefix }, 'could not record key use'));
    return found.team;
  }
}
