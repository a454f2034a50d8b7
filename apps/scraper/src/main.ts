// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'scraper' });

import { runServiceMain } from '@wds/service-kit';
import { scraperServiceOptions } from './scraper.service-options';

runServiceMain(scraperServiceOptions());
