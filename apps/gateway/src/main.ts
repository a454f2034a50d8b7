import './telemetry';
import { runServiceMain } from '@wds/service-kit';
import { gatewayServiceOptions } from './gateway.service-options';

runServiceMain(gatewayServiceOptions());
