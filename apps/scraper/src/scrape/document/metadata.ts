import type { DocumentMetadata } from '@wds/contracts';

/** Metadata keys the contract types as something other than a string (everything else is string | string[]). */
const TYPED_KEYS = new Set([
  'statusCode',
  'concurrencyLimited',
  'concurrencyQueueDurationMs',
  'creditsUsed',
  'numPages',
  'cacheState',
  'proxyUsed',
]);

/**
 * Builds `data.metadata` from loosely typed fields: page meta tags arrive as strings, numbers or
 * booleans, but the contract allows only strings (or lists) beyond its typed keys, so those are
 * stringified and empty values dropped. Later sources override earlier ones.
 */
export function buildMetadata(...sources: Record<string, unknown>[]): DocumentMetadata {
  const out: Record<string, unknown> = {};
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      if (value === undefined || value === null) continue;
      if (TYPED_KEYS.has(key) || typeof value === 'string') out[key] = value;
      else if (Array.isArray(value)) out[key] = value.map(String);
      else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    }
  }
  // The contract's catch-all type cannot express typed keys beside string ones; the values obey it.
  return out as DocumentMetadata;
}
