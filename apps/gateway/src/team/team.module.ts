import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { TeamController } from './team.controller';
import {
  GetCreditUsage,
  GetCreditUsageHistorical,
  GetTokenUsage,
  GetTokenUsageHistorical,
  ListTeamActivity,
  ReadTeamQueue,
} from './team-usage.usecases';

const USE_CASES = [
  ListTeamActivity,
  GetCreditUsage,
  GetTokenUsage,
  GetCreditUsageHistorical,
  GetTokenUsageHistorical,
  ReadTeamQueue,
];

/** Team activity, credit/token usage and queue: billing's records and the live concurrency machinery. */
@Module({
  imports: [LimitsModule],
  controllers: [TeamController],
  providers: USE_CASES,
  exports: USE_CASES,
})
export class TeamModule {}
