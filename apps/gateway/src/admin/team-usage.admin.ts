import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import {
  CreditUsageHistoricalQuery,
  TeamActivityQuery,
  TokenUsageQuery,
  type CreditUsageHistoricalResponse,
  type CreditUsageResponse,
  type TeamActivityResponse,
  type TokenUsageResponse,
} from '@wds/contracts';
import { validate } from '../http/validate';
import {
  GetCreditUsage,
  GetCreditUsageHistorical,
  GetTokenUsageHistorical,
  ListTeamActivity,
} from '../team/team-usage.usecases';
import { TeamsRepository } from '../teams/teams.repository';
import { AdminTokenGuard } from './admin-token.guard';
import { requireTeam } from './team-lookup';

/**
 * Operators read any team's activity and usage: the answers of the team's own /v2/team/* routes
 * (same queries, same shapes), for the team named in the path (404 when there is no such team).
 */
@Controller('admin/v1/teams/:teamId')
@UseGuards(AdminTokenGuard)
export class AdminTeamUsageController {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly activity: ListTeamActivity,
    private readonly creditUsage: GetCreditUsage,
    private readonly creditHistory: GetCreditUsageHistorical,
    private readonly tokenHistory: GetTokenUsageHistorical,
  ) {}

  @Get('activity')
  async teamActivity(
    @Param('teamId') teamId: string,
    @Query() query: unknown,
  ): Promise<TeamActivityResponse> {
    const q = validate(TeamActivityQuery, query, 'query');
    await requireTeam(this.teams, teamId);
    return this.activity.execute(teamId, q);
  }

  @Get('credit-usage')
  async credits(@Param('teamId') teamId: string): Promise<CreditUsageResponse> {
    await requireTeam(this.teams, teamId);
    return this.creditUsage.execute(teamId);
  }

  @Get('credit-usage/historical')
  async creditsHistorical(
    @Param('teamId') teamId: string,
    @Query() query: unknown,
  ): Promise<CreditUsageHistoricalResponse> {
    const { byApiKey } = validate(CreditUsageHistoricalQuery, query, 'query');
    await requireTeam(this.teams, teamId);
    return this.creditHistory.execute(teamId, byApiKey);
  }

  @Get('token-usage/historical')
  async tokensHistorical(
    @Param('teamId') teamId: string,
    @Query() query: unknown,
  ): Promise<TokenUsageResponse> {
    const { byApiKey } = validate(TokenUsageQuery, query, 'query');
    await requireTeam(this.teams, teamId);
    return this.tokenHistory.execute(teamId, byApiKey);
  }
}
