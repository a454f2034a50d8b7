/**
 * Absolute base for links in answers: WDS_PUBLIC_BASE_URL, else the origin the client addressed
 * (`@RequestOrigin()`, or a request's protocol and host).
 */
export function publicBaseUrl(
  configured: string | undefined,
  origin: string | { protocol: string; host: string },
): string {
  if (configured) return configured.replace(/\/+$/, '');
  return typeof origin === 'string' ? origin : `${origin.protocol}://${origin.host}`;
}
