import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Capability URLs of artifacts (screenshots, PDFs, media): `?expires=<unix s>&signature=<HMAC>`
 * lets whoever holds the URL fetch that one artifact until it expires, without the API key (an
 * `<img>` tag, another tool). The HMAC key is a server secret shared by the scraper (which writes
 * the URLs) and the gateway (which checks them); rotating it revokes every URL handed out.
 */
export interface ArtifactSigning {
  secret: string;
  /** How long a URL works, from when it was written. */
  ttlMs: number;
}

export const ARTIFACT_URL_TTL_DEFAULT_MS = 24 * 60 * 60 * 1000;

function mac(secret: string, id: string, expires: number): Buffer {
  return createHmac('sha256', secret).update(`wds-artifact:v1:${id}:${expires}`).digest();
}

/** Screenshot/PDF/media URL served by the gateway: signed (a capability) when `signing` is given. */
export function artifactUrl(
  publicBaseUrl: string,
  id: string,
  signing?: ArtifactSigning,
  now = Date.now(),
): string {
  const base = `${publicBaseUrl.replace(/\/+$/, '')}/v2/artifacts/${id}`;
  if (!signing) return base;
  const expires = Math.floor((now + signing.ttlMs) / 1000);
  return `${base}?expires=${expires}&signature=${mac(signing.secret, id, expires).toString('base64url')}`;
}

export type ArtifactSignatureCheck = 'valid' | 'expired' | 'invalid';

/** Whether `signature` was made with `secret` for this artifact and expiry, and is still in time. */
export function checkArtifactSignature(
  secret: string,
  id: string,
  expires: string,
  signature: string,
  now = Date.now(),
): ArtifactSignatureCheck {
  if (!/^\d{1,12}$/.test(expires)) return 'invalid';
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(secret, id, Number(expires));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) * 1000 < now ? 'expired' : 'valid';
}
