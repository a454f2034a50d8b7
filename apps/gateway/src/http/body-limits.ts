import { BATCH_MAX_BODY_BYTES } from '@wds/contracts';

/** Every other request body: scrape options with 50 actions of scripts fit (see the schemas). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** The largest body of any route: a batch of BATCH_MAX_URLS URLs plus scrape options. */
export const MAX_BODY_BYTES = BATCH_MAX_BODY_BYTES;
/** Longer request URLs are refused with 414 (every id and query parameter fits many times over). */
export const MAX_URL_LENGTH = 8 * 1024;

const BATCH_PATH = /^\/v2\/batch\/scrape\/?(?:\?|$)/;

/** The body limit of a route: only batch creation needs more than the default. */
export function bodyLimitFor(method: string, url: string): number {
  return method === 'POST' && BATCH_PATH.test(url) ? BATCH_MAX_BODY_BYTES : DEFAULT_MAX_BODY_BYTES;
}
