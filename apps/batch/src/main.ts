// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'batch' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { BatchConfig } from './config';

runServiceMain({
  kind: 'batch',
  module: AppModule,
  configSchema: BatchConfig,
  migrations: { schema: 'batch', dir: path.join(__dirname, '..', 'migrations') },
});
