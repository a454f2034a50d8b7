import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { setRequestId } from './request-context';
import { resolveRequestId } from './request-id';

/**
 * Fastify-level wiring that must exist before routes are registered: the request id on every
 * request and response (errors and 404s included), and JSON as the only body type, so a text
 * body is refused with 415 instead of reaching a schema as a string. Fastify's own errors
 * (malformed JSON, body too large) reach the Nest exception filter and leave in the envelope.
 */
export function configureHttp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (req, reply, done) => {
    const requestId = resolveRequestId(req.headers['x-request-id']);
    setRequestId(req, requestId);
    void reply.header('x-request-id', requestId);
    done();
  });
  fastify.removeContentTypeParser('text/plain');
}
