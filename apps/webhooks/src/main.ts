// Telemetry must start before NestJS, pg and undici are loaded so their instrumentations apply.
import { startTelemetry } from '@wds/observability';
startTelemetry({ serviceName: 'webhooks' });

import { runServiceMain } from '@wds/service-kit';
import { webhooksServiceOptions } from './webhooks.service-options';

runServiceMain(webhooksServiceOptions());
