import { HttpException } from '@nestjs/common';
import { ErrorCode, ServiceError, formatZodError, type ErrorEnvelope } from '@wds/contracts';
import { ZodError } from 'zod';

export interface ErrorAnswer {
  status: number;
  body: ErrorEnvelope;
  retryAfterSeconds?: number;
  /** True when the cause is ours (5xx): logged with its stack, never shown to the client. */
  internal: boolean;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHORIZED,
  402: ErrorCode.INSUFFICIENT_CREDITS,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  410: ErrorCode.GONE,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  414: ErrorCode.URI_TOO_LONG,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCode.RATE_LIMITED,
  501: ErrorCode.NOT_IMPLEMENTED,
  502: ErrorCode.UPSTREAM_FAILED,
  503: ErrorCode.SERVICE_UNAVAILABLE,
};

/** Fastify's own 4xx errors (body parsing, content type, size) carry a statusCode and a safe message. */
interface FastifyClientError {
  statusCode: number;
  code?: string;
  message: string;
}

function isFastifyClientError(err: unknown): err is FastifyClientError {
  const e = err as Partial<FastifyClientError> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.statusCode === 'number' &&
    e.statusCode >= 400 &&
    e.statusCode < 500 &&
    typeof e.message === 'string'
  );
}

function envelope(error: string, code?: string, details?: unknown): ErrorEnvelope {
  const body: ErrorEnvelope = { success: false, error };
  if (code !== undefined) body.code = code;
  if (details !== undefined) body.details = details;
  return body;
}

function httpExceptionMessage(err: HttpException): string {
  const res = err.getResponse();
  if (typeof res === 'string') return res;
  const message = (res as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.join('; ');
  return err.message;
}

/** Maps anything thrown while serving a request to the one error envelope (operations.md, Errors). */
export function toErrorAnswer(err: unknown): ErrorAnswer {
  if (err instanceof ServiceError) {
    const status = err.status;
    if (status >= 500 && err.code === ErrorCode.INTERNAL) {
      return { status, body: envelope('Internal server error', err.code), internal: true };
    }
    return {
      status,
      body: err.toEnvelope(),
      retryAfterSeconds: err.retryAfterSeconds,
      internal: status >= 500,
    };
  }
  if (err instanceof ZodError) {
    const { message, details } = formatZodError(err);
    return { status: 400, body: envelope(message, ErrorCode.BAD_REQUEST, details), internal: false };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status >= 500)
      return { status, body: envelope('Internal server error', ErrorCode.INTERNAL), internal: true };
    return { status, body: envelope(httpExceptionMessage(err), CODE_BY_STATUS[status]), internal: false };
  }
  if (isFastifyClientError(err)) {
    const status = err.statusCode;
    return {
      status,
      body: envelope(err.message, CODE_BY_STATUS[status] ?? ErrorCode.BAD_REQUEST),
      internal: false,
    };
  }
  return { status: 500, body: envelope('Internal server error', ErrorCode.INTERNAL), internal: true };
}
