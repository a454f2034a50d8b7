// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'browser-pool' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BrowserPoolConfig } from './config';

runServiceMain({
  kind: 'browser-pool',
  module: AppModule,
  configSchema: BrowserPoolConfig,
  migrations: { schema: 'browser_pool', dir: path.join(__dirname, '..', 'migrations') },
});
