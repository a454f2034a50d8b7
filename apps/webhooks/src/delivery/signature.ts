import { createHmac } from 'node:crypto';

/** `X-Service-Signature` value: HMAC-SHA256 of the exact body bytes with the team's secret, hex. */
export function signatureFor(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
