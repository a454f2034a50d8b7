import path from 'node:path';
import type { ServiceOptions } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BillingConfig } from './config';

/** How the billing process boots; shared by main.ts and any test that runs it in-process. */
export function billingServiceOptions(env?: NodeJS.ProcessEnv): ServiceOptions<typeof BillingConfig> {
  return {
    kind: 'billing',
    module: AppModule,
    configSchema: BillingConfig,
    migrations: { schema: 'billing', dir: path.join(__dirname, '..', 'migrations') },
    ...(env ? { env } : {}),
  };
}
