// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'crawler' });

import { runServiceMain } from '@wds/service-kit';
import { crawlerServiceOptions } from './crawler.service-options';

runServiceMain(crawlerServiceOptions());
