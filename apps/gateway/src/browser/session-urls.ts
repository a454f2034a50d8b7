import {
  liveViewToken,
  RECORDING_MP4,
  RECORDING_PLAYLIST,
  type BrowserSession,
  type BrowserSessionRecord,
} from '@wds/contracts';

/** `ws(s)://` form of the public base URL. */
export function wsBase(publicBase: string): string {
  return publicBase.replace(/^http/, 'ws');
}

/** The session's CDP WebSocket URL through the gateway; "" once it ended (its token is erased). */
export function cdpUrl(publicBase: string, s: BrowserSessionRecord): string {
  return s.token ? `${wsBase(publicBase)}/v2/browser/${s.id}/cdp/${s.token}` : '';
}

/**
 * The live-view pages (read-only and interactive), with tokens derived from the session's; "" once
 * the session ended (the SDKs require strings).
 */
export function liveViewUrls(
  publicBase: string,
  s: Pick<BrowserSessionRecord, 'id' | 'token'>,
): { liveViewUrl: string; interactiveLiveViewUrl: string } {
  if (!s.token) return { liveViewUrl: '', interactiveLiveViewUrl: '' };
  const at = (mode: 'view' | 'interactive') =>
    `${publicBase}/v2/browser/${s.id}/live/${liveViewToken(s.token!, mode)}`;
  return { liveViewUrl: at('view'), interactiveLiveViewUrl: at('interactive') };
}

/** The HLS playlist of the session's recording (its token is the credential), if it is recorded. */
export function playlistUrl(
  publicBase: string,
  s: Pick<BrowserSessionRecord, 'id' | 'recordingToken'>,
): { playlistUrl?: string } {
  return s.recordingToken
    ? { playlistUrl: `${publicBase}/v2/browser/${s.id}/recording/${s.recordingToken}/${RECORDING_PLAYLIST}` }
    : {};
}

/** The recording as one MP4 (made when the session ends), for an ended recorded session. */
export function videoUrl(
  publicBase: string,
  s: Pick<BrowserSessionRecord, 'id' | 'recordingToken' | 'status'>,
): { videoUrl?: string } {
  return s.recordingToken && s.status === 'destroyed'
    ? { videoUrl: `${publicBase}/v2/browser/${s.id}/recording/${s.recordingToken}/${RECORDING_MP4}` }
    : {};
}

export function publicSession(publicBase: string, s: BrowserSessionRecord): BrowserSession {
  return {
    id: s.id,
    status: s.status,
    cdpUrl: cdpUrl(publicBase, s),
    ...liveViewUrls(publicBase, s),
    streamWebView: s.streamWebView,
    ...playlistUrl(publicBase, s),
    ...videoUrl(publicBase, s),
    createdAt: s.createdAt,
    lastActivity: s.lastActivity,
  };
}
