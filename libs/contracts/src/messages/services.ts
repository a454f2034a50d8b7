/** Every kind of service process; `GET /health` requires a live instance of each. */
export const SERVICE_KINDS = [
  'gateway',
  'scraper',
  'crawler',
  'batch',
  'browser-pool',
  'billing',
  'docs-search',
  'webhooks',
] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

export function isServiceKind(value: string): value is ServiceKind {
  return (SERVICE_KINDS as readonly string[]).includes(value);
}
