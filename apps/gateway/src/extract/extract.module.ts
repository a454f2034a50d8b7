import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { AgentController, ExtractController } from './extract.controller';
import { ExtractUseCases } from './extract.usecases';

/** Extract and agent jobs, run by the batch service. */
@Module({
  imports: [CreditsModule],
  controllers: [ExtractController, AgentController],
  providers: [ExtractUseCases],
})
export class ExtractModule {}
