export {
  NetworkPolicy,
  systemResolver,
  type NetworkPolicyOptions,
  type ResolvedAddress,
  type ResolvedTarget,
  type Resolver,
} from './policy';
export {
  OutboundHttp,
  DEFAULT_USER_AGENT,
  type OutboundHttpOptions,
  type OutboundRequest,
  type OutboundResponse,
} from './http';
export { decodeBody, sniffCharset, charsetFromContentType, normalizeCharset, isTextual } from './charset';
export { type UpstreamFailureReason } from './errors';
export {
  buildScrapeHeaders,
  acceptLanguage,
  languagesForCountry,
  DESKTOP_USER_AGENT,
  MOBILE_USER_AGENT,
  type ScrapeHeaderOptions,
} from './headers';
export { ProxyPool, parseProxyList, redactProxyUrl } from './proxy';
