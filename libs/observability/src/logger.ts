import pino, { type Logger } from 'pino';
import { activeTraceIds } from './trace-context';

export interface LoggerOptions {
  service: string;
  level?: string;
  instanceId?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read lines back. */
  destination?: pino.DestinationStream;
}

/** Paths whose values must never reach a log line (credentials in requests, configs and errors). */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'cookie',
  '*.cookie',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'webhookSecret',
  '*.webhookSecret',
  'password',
  '*.password',
  'token',
  '*.token',
  'WDS_ADMIN_TOKEN',
  'WDS_BOOTSTRAP_API_KEY',
  'WDS_BOOTSTRAP_WEBHOOK_SECRET',
  'WDS_LLM_API_KEY',
  'DATABASE_URL',
  '*.DATABASE_URL',
  'NATS_URL',
  '*.NATS_URL',
];

/**
 * Properties some libraries hang on their errors that carry live objects with connection details
 * (pg attaches the client and its connection parameters; undici/http attach sockets and requests).
 * They are dropped from logged errors rather than trusted to redaction paths.
 */
const ERROR_NOISE = ['client', 'connection', 'socket', 'request', 'response', 'config', 'agent'];

function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (out && typeof out === 'object') for (const key of ERROR_NOISE) delete out[key];
  return out;
}

/** pino JSON logger with service/instance on every line and the active trace ids mixed in. */
export function createLogger(opts: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level: opts.level ?? 'info',
    base: { service: opts.service, instanceId: opts.instanceId },
    mixin: () => activeTraceIds() ?? {},
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

export type { Logger } from 'pino';
