import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import { sendError } from './gateway-exception.filter';
import { setRequestId } from './request-context';
import { resolveRequestId } from './request-id';

/**
 * Fastify-level wiring that must exist before routes are registered: the request id on every
 * request and response, and the error envelope for failures Fastify raises itself before Nest
 * sees the request (malformed JSON, unsupported content type, body too large).
 */
export function configureHttp(app: NestFastifyApplication): void {
  const logger = app.get<Logger>(LOGGER);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (req, reply, done) => {
    const requestId = resolveRequestId(req.headers['x-request-id']);
    setRequestId(req, requestId);
    void reply.header('x-request-id', requestId);
    done();
  });
  fastify.setErrorHandler((err, req, reply) => sendError(logger, err, req, reply));
}
