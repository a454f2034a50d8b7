import { Module } from '@nestjs/common';
import { CreditsService } from './credits.service';

/** Import this module in a feature module to inject CreditsService into billable routes. */
@Module({ providers: [CreditsService], exports: [CreditsService] })
export class CreditsModule {}
