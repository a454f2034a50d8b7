import { OPERATIONS, type HttpMethod } from '@wds/contracts';
import { z } from 'zod';

export interface PendingRoute {
  method: HttpMethod;
  /** OpenAPI-style path (`/v2/crawl/{id}`). */
  path: string;
  pathParams?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** What the 501 says instead of "… is not implemented yet" (what is missing, and what exists). */
  why?: string;
}

/**
 * THE route table of public endpoints that are routed but not implemented yet. Each answers 501
 * NOT_IMPLEMENTED after authentication, rate/concurrency limits and validation of its path, query
 * and body with the contracts schema. When an endpoint gets its real controller, delete its
 * operationId here (the route would otherwise be registered twice and Fastify refuses to start).
 */
export const NOT_YET_IMPLEMENTED_OPERATIONS: readonly string[] = [];

/** Routes outside the OpenAPI operations that are not implemented yet. */
const EXTRA_PENDING_ROUTES: readonly PendingRoute[] = [
  ...(['browser', 'interact'] as const).map((base) => ({
    // Firecrawl's server routes a per-page replay beside the session's (neither SDK calls it).
    method: 'get' as const,
    path: `/v2/${base}/{sessionId}/replay/{pageId}`,
    pathParams: z.object({ sessionId: z.uuid(), pageId: z.string().min(1).max(256) }),
    why: `Per-page recordings are not built: a session has one recording, of the page it shows (GET /v2/${base}/{sessionId}/replay)`,
  })),
];

export function pendingRoutes(): PendingRoute[] {
  const routes = NOT_YET_IMPLEMENTED_OPERATIONS.map((id): PendingRoute => {
    const op = OPERATIONS.find((o) => o.operationId === id);
    if (!op) throw new Error(`route table names unknown operation "${id}"`);
    return {
      method: op.method,
      path: op.path,
      pathParams: op.pathParams,
      query: op.query,
      body: op.body?.schema,
    };
  });
  return [...routes, ...EXTRA_PENDING_ROUTES];
}

/** `/v2/crawl/{id}` → `v2/crawl/:id` (Nest/Fastify path syntax). */
export function toRoutePath(openApiPath: string): string {
  return openApiPath.replace(/^\//, '').replace(/\{([^}]+)\}/g, ':$1');
}

export function endpointName(route: PendingRoute): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/** The 501's message for a pending route. */
export function notImplementedMessage(route: PendingRoute): string {
  return route.why ?? `${endpointName(route)} is not implemented yet`;
}
