import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CreditBlocks } from '@wds/credits';
import { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { APP_CONFIG, LOGGER } from '@wds/service-kit';
import type { GatewayConfig } from '../config';
import { RecordCallActivity } from './call-activity';
import { CreditsService } from './credits.service';
import { PendingCreditGrants } from './pending-grants';

/** Import this module in a feature module to inject CreditsService into billable routes. */
@Module({
  providers: [
    {
      provide: CreditBlocks,
      useFactory: (messaging: Messaging, logger: Logger, config: GatewayConfig) =>
        new CreditBlocks(messaging, logger, { holder: `gateway/${config.WDS_INSTANCE_ID}` }),
      inject: [Messaging, LOGGER, APP_CONFIG],
    },
    CreditsService,
    PendingCreditGrants,
    RecordCallActivity,
  ],
  exports: [CreditsService, PendingCreditGrants, RecordCallActivity],
})
export class CreditsModule implements OnApplicationShutdown {
  constructor(@Inject(CreditBlocks) private readonly blocks: CreditBlocks) {}

  /** Reports the last usage and hands unused credits back to billing. */
  async onApplicationShutdown(): Promise<void> {
    await this.blocks.stop();
  }
}
