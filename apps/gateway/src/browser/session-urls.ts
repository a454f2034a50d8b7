import type { BrowserSession, BrowserSessionRecord } from '@wds/contracts';

/** `ws(s)://` form of the public base URL. */
export function wsBase(publicBase: string): string {
  return publicBase.replace(/^http/, 'ws');
}

/** The session's CDP WebSocket URL through the gateway; "" once it ended (its token is erased). */
export function cdpUrl(publicBase: string, s: BrowserSessionRecord): string {
  return s.token ? `${wsBase(publicBase)}/v2/browser/${s.id}/cdp/${s.token}` : '';
}

/** Live views are not built yet: the fields are present (the SDKs require strings) and empty. */
export function liveViewUrls(): { liveViewUrl: string; interactiveLiveViewUrl: string } {
  return { liveViewUrl: '', interactiveLiveViewUrl: '' };
}

export function publicSession(publicBase: string, s: BrowserSessionRecord): BrowserSession {
  return {
    id: s.id,
    status: s.status,
    cdpUrl: cdpUrl(publicBase, s),
    ...liveViewUrls(),
    streamWebView: s.streamWebView,
    createdAt: s.createdAt,
    lastActivity: s.lastActivity,
  };
}
