import { Controller, Get, Query } from '@nestjs/common';
import {
  CreditUsageHistoricalQuery,
  TeamActivityQuery,
  TokenUsageQuery,
  type ConcurrencyCheckResponse,
  type CreditUsageHistoricalResponse,
  type CreditUsageResponse,
  type QueueStatusResponse,
  type TeamActivityResponse,
  type TokenUsageCurrentResponse,
  type TokenUsageResponse,
} from '@wds/contracts';
import type { AuthenticatedTeam } from '../teams/team';
import { CurrentTeam } from '../http/request-context';
import { validate } from '../http/validate';
import {
  GetCreditUsage,
  GetCreditUsageHistorical,
  GetTokenUsage,
  GetTokenUsageHistorical,
  ListTeamActivity,
  ReadTeamQueue,
} from './team-usage.usecases';

/** The asking request holds one of the team's concurrency slots itself; it is not reported. */
const SELF = 1;

/** Team activity, usage and queue (api-v2.md endpoints 10-11, Firecrawl's team endpoints). */
@Controller('v2')
export class TeamController {
  constructor(
    private readonly activity: ListTeamActivity,
    private readonly creditUsage: GetCreditUsage,
    private readonly tokenUsage: GetTokenUsage,
    private readonly creditHistory: GetCreditUsageHistorical,
    private readonly tokenHistory: GetTokenUsageHistorical,
    private readonly queue: ReadTeamQueue,
  ) {}

  @Get('team/activity')
  teamActivity(
    @CurrentTeam() team: AuthenticatedTeam,
    @Query() query: unknown,
  ): Promise<TeamActivityResponse> {
    return this.activity.execute(team.teamId, validate(TeamActivityQuery, query, 'query'));
  }

  @Get('team/credit-usage')
  credits(@CurrentTeam() team: AuthenticatedTeam): Promise<CreditUsageResponse> {
    return this.creditUsage.execute(team.teamId);
  }

  @Get('team/token-usage')
  tokens(@CurrentTeam() team: AuthenticatedTeam): Promise<TokenUsageCurrentResponse> {
    return this.tokenUsage.execute(team.teamId);
  }

  @Get('team/credit-usage/historical')
  creditsHistorical(
    @CurrentTeam() team: AuthenticatedTeam,
    @Query() query: unknown,
  ): Promise<CreditUsageHistoricalResponse> {
    const { byApiKey } = validate(CreditUsageHistoricalQuery, query, 'query');
    return this.creditHistory.execute(team.teamId, byApiKey);
  }

  @Get('team/token-usage/historical')
  tokensHistorical(
    @CurrentTeam() team: AuthenticatedTeam,
    @Query() query: unknown,
  ): Promise<TokenUsageResponse> {
    const { byApiKey } = validate(TokenUsageQuery, query, 'query');
    return this.tokenHistory.execute(team.teamId, byApiKey);
  }

  @Get('team/queue-status')
  queueStatus(@CurrentTeam() team: AuthenticatedTeam): Promise<QueueStatusResponse> {
    return this.queue.status(team.teamId, team.limits.maxConcurrency, SELF);
  }

  @Get('concurrency-check')
  concurrency(@CurrentTeam() team: AuthenticatedTeam): Promise<ConcurrencyCheckResponse> {
    return this.queue.concurrency(team.teamId, team.limits.maxConcurrency, SELF);
  }
}
