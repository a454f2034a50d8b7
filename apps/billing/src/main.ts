// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'billing' });

import { runServiceMain } from '@wds/service-kit';
import { billingServiceOptions } from './billing.service-options';

runServiceMain(billingServiceOptions());
