// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'webhooks' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { WebhooksConfig } from './config';

runServiceMain({
  kind: 'webhooks',
  module: AppModule,
  configSchema: WebhooksConfig,
  migrations: { schema: 'webhooks', dir: path.join(__dirname, '..', 'migrations') },
});
