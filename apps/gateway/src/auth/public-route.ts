import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'wds:public-route';

/** Exempts a /v2 route from the API key guard (e.g. the OpenAPI document). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);

export const CAPABILITY_ROUTE = 'wds:capability-route';

/**
 * A /v2 route that also opens to a capability instead of the API key: a request carrying a
 * `signature` query parameter skips the guard, and the handler must verify that signature.
 */
export const CapabilityRoute = () => SetMetadata(CAPABILITY_ROUTE, true);

/** Every route under /v2 needs an API key unless marked public. */
export function isApiKeyRoute(url: string): boolean {
  return url === '/v2' || url.startsWith('/v2/');
}
