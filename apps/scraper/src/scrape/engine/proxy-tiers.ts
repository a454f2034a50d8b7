import type { ProxyMode, ProxyTier } from '@wds/contracts';

/** Statuses that typically mean "blocked as a bot": `auto` retries them through an enhanced proxy. */
export const BLOCKED_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

export interface ProxyTierPlan<T> {
  /** The request's `proxy` option. */
  proxy: ProxyMode;
  /** Whether an enhanced pool is configured (without one, `auto` has nothing to retry through). */
  enhancedAvailable: boolean;
  /** One attempt through a tier's pool. */
  attempt(tier: ProxyTier): Promise<T>;
  /** The HTTP status an attempt's answer carries. */
  status(result: T): number;
  /** Whether an enhanced retry that throws keeps the first answer (true) or fails the whole (false). */
  keepFirstWhenRetryFails: boolean;
}

/**
 * The proxy-tier rule, for the fetch engine and browser renders alike: `enhanced` goes through the
 * enhanced pool; `basic` through the basic pool only; `auto` through the basic pool and, when the
 * page answered as a bot wall and an enhanced pool exists, once more through the enhanced pool. The
 * retry is kept only if it got past the wall: only then is it worth the enhanced price (see
 * `freshScrapeCost` in contracts).
 */
export async function throughProxyTiers<T>(plan: ProxyTierPlan<T>): Promise<T> {
  if (plan.proxy === 'enhanced') return plan.attempt('enhanced');
  const first = await plan.attempt('basic');
  if (plan.proxy === 'basic' || !BLOCKED_STATUSES.has(plan.status(first)) || !plan.enhancedAvailable) {
    return first;
  }
  let retry: T;
  try {
    retry = await plan.attempt('enhanced');
  } catch (err) {
    if (plan.keepFirstWhenRetryFails) return first;
    throw err;
  }
  return BLOCKED_STATUSES.has(plan.status(retry)) ? first : retry;
}
