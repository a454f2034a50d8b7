// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'batch' });

import { runServiceMain } from '@wds/service-kit';
import { batchServiceOptions } from './batch.service-options';

runServiceMain(batchServiceOptions());
