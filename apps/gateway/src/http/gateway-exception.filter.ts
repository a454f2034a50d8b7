import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Logger } from '@wds/observability';
import { LOGGER } from '@wds/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorAnswer } from './error-envelope';
import { requestIdOf } from './request-context';

/** Sends an error in the envelope; shared by the Nest filter and Fastify's own error handler. */
export function sendError(logger: Logger, err: unknown, req: FastifyRequest, reply: FastifyReply): void {
  const answer = toErrorAnswer(err);
  const requestId = requestIdOf(req);
  if (answer.internal) {
    logger.error({ err, requestId, method: req.method, url: req.url }, 'request failed');
  } else {
    logger.debug({ requestId, status: answer.status, code: answer.body.code }, 'request rejected');
  }
  if (answer.retryAfterSeconds !== undefined)
    void reply.header('retry-after', String(answer.retryAfterSeconds));
  if (requestId) void reply.header('x-request-id', requestId);
  void reply.status(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

/** Every failure of an HTTP request leaves in the error envelope of operations.md. */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(this.logger, exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
