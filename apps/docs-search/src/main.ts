// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'docs-search' });

import path from 'node:path';
import { runServiceMain } from '@wds/service-kit';
import { AppModule } from './app.module';
import { DocsSearchConfig } from './config';

runServiceMain({
  kind: 'docs-search',
  module: AppModule,
  configSchema: DocsSearchConfig,
  migrations: { schema: 'docs_search', dir: path.join(__dirname, '..', 'migrations') },
});
