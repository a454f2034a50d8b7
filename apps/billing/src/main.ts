// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'billing' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BillingConfig } from './config';

runServiceMain({
  kind: 'billing',
  module: AppModule,
  configSchema: BillingConfig,
  migrations: { schema: 'billing', dir: path.join(__dirname, '..', 'migrations') },
});
