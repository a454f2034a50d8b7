import { ServiceError } from '@wds/contracts';

/** `details.reason` of the UPSTREAM_FAILED errors OutboundHttp throws. */
export type UpstreamFailureReason =
  | 'dns'
  | 'refused'
  | 'tls'
  | 'reset'
  | 'too_many_redirects'
  | 'too_large'
  | 'bad_redirect'
  | 'decode'
  | 'proxy'
  | 'network';

export function upstreamFailed(
  reason: UpstreamFailureReason,
  message: string,
  extra: object = {},
): ServiceError {
  return new ServiceError('UPSTREAM_FAILED', message, { reason, ...extra });
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'EPROTO',
]);

const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    cur = (cur as { cause?: unknown }).cause;
  }
  return codes;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Maps a socket/undici error to a ServiceError with a message naming the host. Timeouts are
 * handled by the caller (it knows whether its own deadline fired).
 */
export function classifyNetworkError(err: unknown, host: string, viaProxy: boolean): ServiceError {
  if (err instanceof ServiceError) return err;
  const codes = codesOf(err);
  const has = (pred: (c: string) => boolean) => codes.some(pred);
  if (has((c) => c === 'ENOTFOUND' || c === 'EAI_AGAIN' || c === 'EAI_NONAME' || c === 'EAI_FAIL')) {
    return upstreamFailed('dns', `could not resolve host ${host}`, { host });
  }
  if (has((c) => c === 'ECONNREFUSED')) {
    return upstreamFailed('refused', `connection to ${host} was refused${viaProxy ? ' (via proxy)' : ''}`, {
      host,
    });
  }
  if (has((c) => TLS_CODES.has(c) || c.startsWith('ERR_SSL_') || c.startsWith('ERR_TLS_'))) {
    return upstreamFailed('tls', `TLS handshake with ${host} failed: ${messageOf(err)}`, {
      host,
      code: codes.find((c) => TLS_CODES.has(c) || c.startsWith('ERR_')),
    });
  }
  if (viaProxy && has((c) => c === 'UND_ERR_ABORTED' || c === 'UND_ERR_PRX_TLS')) {
    return upstreamFailed('proxy', `proxy could not reach ${host}: ${messageOf(err)}`, { host });
  }
  if (has((c) => RESET_CODES.has(c))) {
    return upstreamFailed('reset', `connection to ${host} was reset before the response completed`, { host });
  }
  return upstreamFailed('network', `request to ${host} failed: ${messageOf(err)}`, {
    host,
    ...(codes[0] ? { code: codes[0] } : {}),
  });
}
