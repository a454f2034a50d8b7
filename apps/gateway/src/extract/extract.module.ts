import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { AgentLiveViewController, AgentLiveViewSocket } from './agent-live-view';
import { AgentController, ExtractController } from './extract.controller';
import { ExtractUseCases } from './extract.usecases';

/** Extract and agent jobs, run by the batch service; the live views of running agents (browser pool). */
@Module({
  imports: [CreditsModule],
  controllers: [ExtractController, AgentController, AgentLiveViewController],
  providers: [ExtractUseCases, AgentLiveViewSocket],
})
export class ExtractModule {}
