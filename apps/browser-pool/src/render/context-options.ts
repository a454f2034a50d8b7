import type { BrowserRenderRequest } from '@wds/contracts';
import { buildScrapeHeaders } from '@wds/outbound';
import { devices, type BrowserContextOptions } from 'playwright-core';

/** Desktop viewport of renders and screenshots unless the request names one (Firecrawl's default too). */
export const DEFAULT_VIEWPORT = { width: 1920, height: 1080 } as const;
const MOBILE_DEVICE = devices['Pixel 7'];

export type StorageState = Exclude<BrowserContextOptions['storageState'], string | undefined>;

export interface ContextSpec {
  /** Identical for identical options, so a pre-created context can serve the request; none with a profile. */
  key?: string;
  /** Emulation, TLS, headers every request carries (Accept-Language and the caller's own), proxy. */
  options: BrowserContextOptions;
}

/** Locale and IANA time zone for a country and optional language list (ICU data of the runtime). */
export function localeFor(location: { country: string; languages?: string[] }): {
  locale: string;
  timezoneId?: string;
} {
  const region = new Intl.Locale(`und-${location.country}`);
  const language = location.languages?.[0] ?? `${region.maximize().language}-${location.country}`;
  // `timeZones` is V8's (Node 20) name for the proposal's getTimeZones(); either may exist.
  const zones =
    (region as unknown as { timeZones?: string[] }).timeZones ??
    (region as unknown as { getTimeZones?: () => string[] }).getTimeZones?.();
  return { locale: language, timezoneId: zones?.[0] };
}

/**
 * Browser context options of a render request: device, locale, time zone, TLS, request headers, and the
 * policy proxy listener when the page must leave through an upstream proxy (`proxyServer`).
 */
export function contextSpecFor(
  req: Pick<BrowserRenderRequest, 'mobile' | 'location' | 'skipTlsVerification' | 'headers'>,
  storageState?: StorageState,
  proxyServer?: string,
): ContextSpec {
  const location = req.location ?? { country: 'US' };
  const { locale, timezoneId } = localeFor(location);
  const generated = buildScrapeHeaders({ mobile: req.mobile, location });
  const device: BrowserContextOptions = req.mobile
    ? { ...MOBILE_DEVICE }
    : { viewport: { ...DEFAULT_VIEWPORT }, userAgent: generated['User-Agent'] };
  const headers: Record<string, string> = { 'Accept-Language': generated['Accept-Language'] };
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  if (req.headers && Object.keys(req.headers).some((k) => k.toLowerCase() === 'accept-language'))
    delete headers['Accept-Language'];
  const options: BrowserContextOptions = {
    ...device,
    locale,
    timezoneId,
    ignoreHTTPSErrors: req.skipTlsVerification,
    extraHTTPHeaders: headers,
    ...(proxyServer ? { proxy: { server: proxyServer } } : {}),
    ...(storageState ? { storageState } : {}),
  };
  return { key: storageState ? undefined : JSON.stringify(options), options };
}
