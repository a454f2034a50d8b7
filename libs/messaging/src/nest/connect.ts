import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { MicroserviceOptions, NestMicroservice } from '@nestjs/microservices';
import { RethrowRpcExceptionFilter } from './exception-filter';
import { WdsTransportServer, type WdsTransportOptions } from './server';

/**
 * Connects the WDS transport to a Nest application (a hybrid app: HTTP and messaging share the
 * container). Its handlers are served by `app.startAllMicroservices()`, which must come after
 * `app.init()` so the lifecycle hooks have run (streams ensured, indexes loaded) before the first
 * message arrives. The transport's exception filter is installed before the handlers are bound
 * (Nest reads global filters when it builds each handler's context), then the listeners are
 * registered the way Nest does for a non-deferred hybrid microservice.
 */
export function connectWdsTransport(app: INestApplication, options: WdsTransportOptions): INestMicroservice {
  const microservice = app.connectMicroservice<MicroserviceOptions>(
    { strategy: new WdsTransportServer(options) },
    { deferInitialization: true },
  );
  microservice.useGlobalFilters(new RethrowRpcExceptionFilter());
  const nest = microservice as unknown as NestMicroservice;
  nest.registerListeners();
  nest.setIsInitialized(true);
  // The application runs the lifecycle hooks of the shared container; the microservice must not again.
  nest.setIsInitHookCalled(true);
  return microservice;
}
