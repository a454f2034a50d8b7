import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { TeamsModule } from '../teams/teams.module';
import { BootstrapTeamInitializer } from './bootstrap-team.initializer';
import { EnsureBootstrapTeam, GrantCreationCredits } from './ensure-bootstrap-team.usecase';

@Module({
  imports: [CreditsModule, TeamsModule],
  providers: [EnsureBootstrapTeam, GrantCreationCredits, BootstrapTeamInitializer],
})
export class BootstrapModule {}
