import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { BatchController } from './batch.controller';
import { BatchUseCases } from './batch.usecases';

/** The batch scrape endpoints, served by the batch service. */
@Module({
  imports: [CreditsModule],
  controllers: [BatchController],
  providers: [BatchUseCases],
})
export class BatchModule {}
