const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The default back-off between attempts: 9 attempts over about 22.7 hours, then the delivery fails. */
export const DEFAULT_RETRY_SCHEDULE = '30s,2m,10m,30m,1h,3h,6h,12h';

/** `'30s, 2m, 1h, 250ms'` (a bare number is milliseconds) → delays in ms. */
export function parseRetrySchedule(value: string): number[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return parts.map((part) => {
    const m = /^(\d+)(ms|s|m|h)?$/.exec(part);
    if (!m) throw new Error(`"${part}" is not a duration (e.g. 500ms, 30s, 2m, 1h)`);
    const ms = Number(m[1]) * UNIT_MS[m[2] ?? 'ms'];
    if (ms <= 0) throw new Error(`"${part}" must be positive`);
    return ms;
  });
}

/**
 * When to try again after `attemptsMade` failed attempts, or undefined when the schedule is used up.
 * Up to +10% jitter spreads the retries of many deliveries to a receiver that comes back.
 */
export function retryDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + 0.1 * random()));
}
