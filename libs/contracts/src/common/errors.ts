import { z } from 'zod';

/** The one error envelope: HTTP error bodies, NATS error replies and dead letters all use it. */
export const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.string().optional(),
  details: z.unknown().optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Machine codes used across services. HTTP status is decided by `errorStatus`. */
export const ErrorCode = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  INSUFFICIENT_CREDITS: 'INSUFFICIENT_CREDITS',
  FORBIDDEN: 'FORBIDDEN',
  DESTINATION_BLOCKED: 'DESTINATION_BLOCKED',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  GONE: 'GONE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  URI_TOO_LONG: 'URI_TOO_LONG',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  CONCURRENCY_LIMITED: 'CONCURRENCY_LIMITED',
  SCRAPE_TIMEOUT: 'SCRAPE_TIMEOUT',
  SCRAPE_NO_CACHED_DATA: 'SCRAPE_NO_CACHED_DATA',
  SCRAPE_LOCKDOWN_CACHE_MISS: 'SCRAPE_LOCKDOWN_CACHE_MISS',
  NOT_IMPLEMENTED: 'NOT_IMPLEMENTED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  UPSTREAM_FAILED: 'UPSTREAM_FAILED',
  /** A backing service took longer than the gateway waits. */
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  DESTINATION_BLOCKED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMITED: 429,
  SCRAPE_TIMEOUT: 408,
  SCRAPE_NO_CACHED_DATA: 404,
  SCRAPE_LOCKDOWN_CACHE_MISS: 404,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_FAILED: 502,
  UPSTREAM_TIMEOUT: 504,
  INTERNAL: 500,
};

export function errorStatus(code: ErrorCode): number {
  return STATUS[code];
}

/**
 * An error that crosses process boundaries: thrown by handlers, serialised as an ErrorEnvelope in
 * NATS replies, turned into the HTTP answer by the gateway's exception filter.
 */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Seconds, for 429 answers (Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  get status(): number {
    return errorStatus(this.code);
  }

  toEnvelope(): ErrorEnvelope {
    const env: ErrorEnvelope = { success: false, error: this.message, code: this.code };
    if (this.details !== undefined) env.details = this.details;
    return env;
  }

  static fromEnvelope(env: ErrorEnvelope): ServiceError {
    const code = (Object.values(ErrorCode) as string[]).includes(env.code ?? '')
      ? (env.code as ErrorCode)
      : ErrorCode.INTERNAL;
    return new ServiceError(code, env.error, env.details);
  }
}
