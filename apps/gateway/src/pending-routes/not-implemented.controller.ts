import { Controller, RequestMethod, RequestMapping, Req, type Type } from '@nestjs/common';
import { ErrorCode, ServiceError, type HttpMethod } from '@wds/contracts';
import type { FastifyRequest } from 'fastify';
import { validate } from '../http/validate';
import {
  notImplementedMessage,
  pendingRoutes,
  toRoutePath,
  type PendingRoute,
} from './not-implemented.routes';

const NEST_METHOD: Record<HttpMethod, RequestMethod> = {
  get: RequestMethod.GET,
  post: RequestMethod.POST,
  put: RequestMethod.PUT,
  delete: RequestMethod.DELETE,
};

function handlerFor(route: PendingRoute) {
  return function notImplemented(req: FastifyRequest): never {
    if (route.pathParams) validate(route.pathParams, req.params, 'path');
    if (route.query) validate(route.query, req.query, 'query');
    if (route.body) validate(route.body, req.body, 'body');
    throw new ServiceError(ErrorCode.NOT_IMPLEMENTED, notImplementedMessage(route));
  };
}

/**
 * One controller whose handlers are generated from the route table, so the table stays the only
 * place that lists pending endpoints. Authentication and limits come from the global /v2 guard and
 * interceptor like on any other public route.
 */
export function buildNotImplementedController(routes: PendingRoute[] = pendingRoutes()): Type<unknown> {
  @Controller()
  class NotImplementedController {}

  routes.forEach((route, i) => {
    const name = `pending${i}`;
    Object.defineProperty(NotImplementedController.prototype, name, {
      value: handlerFor(route),
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(
      NotImplementedController.prototype,
      name,
    ) as PropertyDescriptor;
    Req()(NotImplementedController.prototype, name, 0);
    RequestMapping({ path: toRoutePath(route.path), method: NEST_METHOD[route.method] })(
      NotImplementedController.prototype,
      name,
      descriptor,
    );
  });
  return NotImplementedController;
}
