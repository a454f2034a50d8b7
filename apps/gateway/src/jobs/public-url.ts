import type { FastifyRequest } from 'fastify';

/** Absolute base for links in answers: WDS_PUBLIC_BASE_URL, else the request's own host. */
export function publicBaseUrl(configured: string | undefined, req: FastifyRequest): string {
  if (configured) return configured.replace(/\/+$/, '');
  return `${req.protocol}://${req.host}`;
}
