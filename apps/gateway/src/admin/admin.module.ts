import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CreditsModule } from '../credits/credits.module';
import { TeamsModule } from '../teams/teams.module';
import { AdminTokenGuard } from './admin-token.guard';
import { AdminController } from './admin.controller';
import { AdjustCredits, CreateApiKey, CreateTeam, RevokeApiKey, SetTeamLimits, SetWebhookSecret } from './admin.usecases';

@Module({
  imports: [AuthModule, CreditsModule, TeamsModule],
  controllers: [AdminController],
  providers: [AdminTokenGuard, CreateTeam, CreateApiKey, RevokeApiKey, AdjustCredits, SetTeamLimits, SetWebhookSecret],
})
export class AdminModule {}
