import { systemResolver, type ResolvedAddress, type Resolver } from '@wds/outbound';

/**
 * A resolver that keeps answers briefly: a page asks for the same few hosts dozens of times (the route
 * check and the policy proxy each vet every request). Safe against rebinding because the proxy connects
 * to the very address it vetted, whichever answer that was.
 */
export function cachingResolver(
  resolve: Resolver = systemResolver,
  ttlMs = 30_000,
  maxEntries = 2_000,
  now: () => number = Date.now,
): Resolver {
  const cache = new Map<string, { at: number; answer: Promise<ResolvedAddress[]> }>();
  return (host) => {
    const hit = cache.get(host);
    if (hit && now() - hit.at < ttlMs) return hit.answer;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    const answer = resolve(host);
    cache.set(host, { at: now(), answer });
    // Failures are not kept: the next request asks again.
    answer.catch(() => {
      if (cache.get(host)?.answer === answer) cache.delete(host);
    });
    return answer;
  };
}
