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
];

/** pino JSON logger with service/instance on every line and the active trace ids mixed in. */
export function createLogger(opts: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level: opts.level ?? 'info',
    base: { service: opts.service, instanceId: opts.instanceId },
    mixin: () => activeTraceIds() ?? {},
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

export type { Logger } from 'pino';
