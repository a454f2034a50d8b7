import os from 'node:os';
import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's schema; lists every bad variable at once. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** 'true'/'false'/'1'/'0'/'yes'/'no' (any case) → boolean; anything else is a config error. */
export function envBool() {
  return z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'expected true or false' }))
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
}

/** Comma-separated list → trimmed, non-empty entries. An empty string is an empty list. */
export function envList() {
  return z.string().transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );
}

/** Non-negative integer given as a string (ports, timeouts). */
export function envInt(opts: { min?: number; max?: number } = {}) {
  let n = z.number().int();
  if (opts.min !== undefined) n = n.min(opts.min);
  if (opts.max !== undefined) n = n.max(opts.max);
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number)
    .pipe(n);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** Variables every service reads; an app's schema extends this one (`CommonEnv.extend({...})`). */
export const CommonEnv = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
    .default('postgres://wds:wds@127.0.0.1:5432/wds'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  HEALTH_PORT: envInt({ min: 0, max: 65535 }).default(0),
  HEALTH_HOST: z.string().min(1).default('0.0.0.0'),
  WDS_INSTANCE_ID: z
    .string()
    .min(1)
    .default(() => `${os.hostname()}-${process.pid}`),
  WDS_PRIVATE_NETWORK_ALLOWLIST: envList().default([]),
  WDS_MIGRATE_ON_START: envBool().default(true),
  SHUTDOWN_GRACE_MS: envInt({ min: 0 }).default(15000),
});
export type CommonEnv = z.output<typeof CommonEnv>;

/**
 * Parses the environment once at start-up. Empty strings count as unset, so `FOO=` in a
 * deployment manifest falls back to the default instead of failing a number or URL check.
 */
export function parseEnv<S extends z.ZodObject<z.ZodRawShape>>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.output<S> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.') || '(root)';
    const shown = issue.path.length ? input[String(issue.path[0])] : undefined;
    return `${name}: ${issue.message}${shown === undefined ? ' (unset)' : ''}`;
  });
  throw new ConfigError(issues);
}
