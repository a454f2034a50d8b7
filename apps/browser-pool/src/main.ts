// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'browser-pool' });

import { runServiceMain } from '@wds/service-kit';
import { browserPoolServiceOptions } from './browser-pool.service-options';

runServiceMain(browserPoolServiceOptions());
