import { ErrorCode, ServiceError } from '@wds/contracts';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { toErrorAnswer } from './error-envelope';
import { bodyLimitFor, MAX_BODY_BYTES, MAX_URL_LENGTH } from './body-limits';
import { findNul } from './nul';
import { setRequestId } from './request-context';
import { resolveRequestId } from './request-id';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const media = contentType.split(';', 1)[0].trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/**
 * Fastify-level wiring that must exist before routes are registered: the request id on every
 * request and response (errors and 404s included), and the entry checks of the contract boundary
 * answered in the envelope before anything is parsed or routed:
 * - JSON is the only body type (form-encoded, text, multipart bodies: 415);
 * - a body larger than its route's limit: 413 (limits in body-limits.ts follow the schemas);
 * - a URL longer than MAX_URL_LENGTH: 414;
 * - a NUL character anywhere in the URL or in a string of the body: 400 (PostgreSQL, Chromium and
 *   most C libraries cannot carry it, and no legitimate value needs it).
 * An empty body with `content-type: application/json` is no body at all (firecrawl-py sends one
 * with DELETE). Fastify's own errors reach the Nest exception filter and leave in the envelope.
 */
export function configureHttp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (req, reply, done) => {
    const requestId = resolveRequestId(req.headers['x-request-id']);
    setRequestId(req, requestId);
    void reply.header('x-request-id', requestId);
    done(entryProblem(req) ?? undefined);
  });

  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('text/plain');
  // Through Nest, so its own application/json parser is not registered over this one at init.
  app.useBodyParser('application/json', { bodyLimit: MAX_BODY_BYTES }, (req: FastifyRequest, body, done) => {
    if (body.length > bodyLimitFor(req.method, req.url)) {
      done(tooLarge(req), undefined);
      return;
    }
    const text = body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(req as Parameters<typeof parseJson>[0], text, (err: Error | null, value: unknown) => {
      if (err) return done(err, undefined);
      const at = findNul(value);
      if (at !== null) {
        return done(
          new ServiceError(ErrorCode.BAD_REQUEST, `${at}: NUL characters (U+0000) are not allowed`),
          undefined,
        );
      }
      done(null, value);
    });
  });
}

/**
 * Server options of the gateway's Fastify: path parameters as long as a URL may be (the length is
 * judged once, in onRequest), and the router's own refusals (malformed URL) in the envelope.
 */
export function fastifyOptions(): Pick<FastifyServerOptions, 'routerOptions' | 'frameworkErrors'> {
  return {
    routerOptions: { maxParamLength: MAX_URL_LENGTH },
    frameworkErrors: (error, req, reply) => {
      const answer = toErrorAnswer(error);
      const requestId = resolveRequestId(req.headers['x-request-id']);
      const raw = reply as unknown as FastifyReply;
      void raw
        .status(answer.status)
        .header('x-request-id', requestId)
        .type('application/json; charset=utf-8')
        .send(answer.body);
    },
  };
}

function tooLarge(req: FastifyRequest): ServiceError {
  const limit = bodyLimitFor(req.method, req.url);
  return new ServiceError(
    ErrorCode.PAYLOAD_TOO_LARGE,
    `Request body is larger than ${limit} bytes, the limit of ${req.method} ${req.url.split('?')[0]}`,
    { limitBytes: limit },
  );
}

function entryProblem(req: FastifyRequest): ServiceError | null {
  if (req.url.length > MAX_URL_LENGTH) {
    return new ServiceError(
      ErrorCode.URI_TOO_LONG,
      `Request URL is longer than ${MAX_URL_LENGTH} characters`,
    );
  }
  if (/%00|\0/i.test(req.url)) {
    return new ServiceError(ErrorCode.BAD_REQUEST, 'NUL characters (%00) are not allowed in the URL');
  }
  if (!BODY_METHODS.has(req.method) || !hasBody(req)) return null;
  const contentType = req.headers['content-type'];
  if (!isJson(contentType)) {
    return new ServiceError(
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      `Unsupported content type ${JSON.stringify(contentType ?? '(none)')}: request bodies must be application/json`,
    );
  }
  const length = Number(req.headers['content-length']);
  if (Number.isFinite(length) && length > bodyLimitFor(req.method, req.url)) return tooLarge(req);
  return null;
}
