// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'crawler' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { CrawlerConfig } from './config';

runServiceMain({
  kind: 'crawler',
  module: AppModule,
  configSchema: CrawlerConfig,
  migrations: { schema: 'crawler', dir: path.join(__dirname, '..', 'migrations') },
});
