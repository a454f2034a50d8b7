import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CreditsModule } from '../credits/credits.module';
import { TeamModule } from '../team/team.module';
import { TeamsModule } from '../teams/teams.module';
import { AdminTokenGuard } from './admin-token.guard';
import { AdminController } from './admin.controller';
import { AdminTeamUsageController } from './team-usage.admin';
import { AdjustCredits } from './adjust-credits.usecase';
import { CreateApiKey } from './create-api-key.usecase';
import { CreateTeam } from './create-team.usecase';
import { RevokeApiKey } from './revoke-api-key.usecase';
import { SetTeamFeatures } from './set-team-features.usecase';
import { SetTeamLimits } from './set-team-limits.usecase';
import { SetWebhookSecret } from './set-webhook-secret.usecase';
import { RequeueWebhooks } from './requeue-webhooks.usecase';

@Module({
  imports: [AuthModule, CreditsModule, TeamsModule, TeamModule],
  controllers: [AdminController, AdminTeamUsageController],
  providers: [
    AdminTokenGuard,
    CreateTeam,
    CreateApiKey,
    RevokeApiKey,
    AdjustCredits,
    SetTeamLimits,
    SetTeamFeatures,
    SetWebhookSecret,
    RequeueWebhooks,
  ],
})
export class AdminModule {}
