// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'docs-search' });

import { runServiceMain } from '@wds/service-kit';
import { docsSearchServiceOptions } from './docs-search.service-options';

runServiceMain(docsSearchServiceOptions());
