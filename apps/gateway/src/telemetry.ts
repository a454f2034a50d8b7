import { startTelemetry } from '@wds/observability';

// Imported first by main.ts: instrumentations must patch http, pg and undici before they load.
startTelemetry({ serviceName: 'wds-gateway' });
