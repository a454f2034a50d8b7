import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError, type AdminCreditsRequest } from '@wds/contracts';
import { CreditsService } from '../credits/credits.service';
import { TeamsRepository } from '../teams/teams.repository';
import { requireTeam } from './team-lookup';

/** Grants (or, negative, corrects) credits through the billing ledger. */
@Injectable()
export class AdjustCredits {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly credits: CreditsService,
  ) {}

  /** `idempotencyKey` comes from the Idempotency-Key header; without one every call counts. */
  async execute(
    teamId: string,
    cmd: AdminCreditsRequest,
    idempotencyKey?: string,
  ): Promise<{ balance: number }> {
    if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > 200)) {
      throw new ServiceError(ErrorCode.BAD_REQUEST, 'Idempotency-Key header: 1 to 200 characters');
    }
    await requireTeam(this.teams, teamId);
    const key = `admin:${teamId}:${idempotencyKey ?? randomUUID()}`;
    return { balance: await this.credits.grant(teamId, cmd.amount, cmd.reason, key) };
  }
}
