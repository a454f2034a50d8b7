import './telemetry';
import { runServiceMain } from '@wds/service-kit';
import { gatewayServiceOptions } from './gateway.service';

runServiceMain(gatewayServiceOptions());
