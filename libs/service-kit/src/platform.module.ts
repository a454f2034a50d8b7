import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Database } from '@wds/database';
import { Messaging, WdsClientProxy } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { HealthController } from './health.controller';
import { HealthProblems } from './health-problems';
import { APP_CONFIG, LOGGER } from './tokens';

export interface PlatformDeps {
  config: unknown;
  logger: Logger;
  messaging: Messaging;
  database: Database;
  problems: HealthProblems;
}

/**
 * Makes the already-started infrastructure injectable everywhere. The connections are created
 * before Nest starts (so migrations and streams are ready first) and closed by `stop()`, not by Nest.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(deps: PlatformDeps): DynamicModule {
    return {
      module: PlatformModule,
      controllers: [HealthController],
      providers: [
        { provide: APP_CONFIG, useValue: deps.config },
        { provide: LOGGER, useValue: deps.logger },
        { provide: Messaging, useValue: deps.messaging },
        { provide: WdsClientProxy, useValue: new WdsClientProxy(deps.messaging) },
        { provide: Database, useValue: deps.database },
        { provide: HealthProblems, useValue: deps.problems },
      ],
      exports: [APP_CONFIG, LOGGER, Messaging, WdsClientProxy, Database, HealthProblems],
    };
  }
}
