import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

/**
 * CDP methods a session's clients may not call: they would let the browser connect somewhere without
 * the policy proxy (a context with its own proxy, remote target discovery).
 */
export function refusedCdpCall(method: string, params: unknown): string | undefined {
  if (method === 'Target.setRemoteLocations') return 'remote target discovery is not allowed';
  if (method === 'Target.createBrowserContext') {
    const p = (params ?? {}) as { proxyServer?: unknown; proxyBypassList?: unknown };
    if (p.proxyServer !== undefined || p.proxyBypassList !== undefined)
      return 'browser contexts with their own proxy are not allowed (the network policy applies)';
  }
  return undefined;
}

const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/**
 * Relays CDP WebSocket connections to one session's browser, refusing the calls above. Used for the
 * sandbox's socket and for the external cdpUrl (through the gateway), so both obey the same rules.
 */
export class CdpRelay {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly sockets = new Set<WebSocket>();
  private closed = false;

  /** Called with the target a client brings to the front (live views and recordings follow it). */
  onFront: (targetId: string) => void = () => undefined;

  /**
   * @param browserWsUrl ws://127.0.0.1:PORT/devtools/browser/ID of the session's Chromium
   * @param onActivity called for every message a client sends (the session's activity clock)
   */
  constructor(
    private readonly browserWsUrl: string,
    private readonly onActivity: () => void = () => undefined,
  ) {}

  /** `/json/version` (and `/json/version/`): what CDP clients read before connecting. */
  answerHttp(req: IncomingMessage, res: ServerResponse, wsBase: string): void {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (path.endsWith('/json/version')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          Browser: 'Chromium',
          'Protocol-Version': '1.3',
          webSocketDebuggerUrl: `${wsBase}/devtools/browser`,
        }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  /** Upgrades `req` and relays it to the browser endpoint (page targets by `/devtools/page/<id>`). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, devtoolsPath: string): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    const page = /^\/devtools\/page\/([\w-]+)$/.exec(devtoolsPath);
    const target = page
      ? this.browserWsUrl.replace(/\/devtools\/browser\/[\w-]+$/, devtoolsPath)
      : this.browserWsUrl;
    this.wss.handleUpgrade(req, socket, head, (client) => this.bridge(client, target, page?.[1]));
  }

  close(): void {
    this.closed = true;
    for (const s of this.sockets) s.terminate();
    this.wss.close();
  }

  /**
   * @param pageTarget the page target a `/devtools/page/<id>` connection is to (its messages without
   *   a sessionId are that page's)
   */
  private bridge(client: WebSocket, target: string, pageTarget?: string): void {
    const upstream = new WebSocket(target, { maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
    // The client's flattened CDP sessions and the targets they are attached to (from the browser's
    // Target.attachedToTarget events), so a Page.bringToFront can be told by its target.
    const attached = new Map<string, string>();
    this.sockets.add(client);
    this.sockets.add(upstream);
    const queued: RawData[] = [];
    const end = () => {
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      client.terminate();
      upstream.terminate();
    };
    upstream.on('open', () => {
      for (const m of queued.splice(0)) upstream.send(m, { binary: false });
    });
    upstream.on('message', (data, isBinary) => {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
      trackAttachments(data, attached);
    });
    client.on('message', (data) => {
      this.onActivity();
      const refusal = this.inspect(data, (sessionId) =>
        sessionId === undefined ? pageTarget : attached.get(sessionId),
      );
      if (refusal) {
        client.send(JSON.stringify(refusal));
        return;
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: false });
      else queued.push(data);
    });
    client.on('close', end);
    client.on('error', end);
    upstream.on('close', end);
    upstream.on('error', end);
  }

  private inspect(
    data: RawData,
    targetOf: (sessionId: string | undefined) => string | undefined,
  ): object | undefined {
    let msg: { id?: unknown; method?: unknown; params?: unknown; sessionId?: unknown };
    try {
      msg = JSON.parse(data.toString()) as typeof msg;
    } catch {
      return { error: { code: -32700, message: 'Message must be JSON' } };
    }
    if (typeof msg.method !== 'string') return undefined;
    const front = frontTarget(msg.method, msg.params, () =>
      targetOf(typeof msg.sessionId === 'string' ? msg.sessionId : undefined),
    );
    if (front) this.onFront(front);
    const reason = refusedCdpCall(msg.method, msg.params);
    if (!reason) return undefined;
    return {
      id: msg.id,
      ...(msg.sessionId !== undefined ? { sessionId: msg.sessionId } : {}),
      error: { code: -32000, message: `Refused by the platform: ${reason}` },
    };
  }
}

/** The target a client call brings to the front (Page.bringToFront on a page, Target.activateTarget). */
function frontTarget(
  method: string,
  params: unknown,
  targetOfCall: () => string | undefined,
): string | undefined {
  if (method === 'Page.bringToFront') return targetOfCall();
  if (method === 'Target.activateTarget') {
    const id = (params as { targetId?: unknown } | undefined)?.targetId;
    return typeof id === 'string' ? id : undefined;
  }
  return undefined;
}

/**
 * Keeps `attached` (sessionId → targetId) up to date from the browser's Target.attachedToTarget and
 * Target.detachedFromTarget events; other messages are not parsed (a byte search rules them out).
 */
function trackAttachments(data: RawData, attached: Map<string, string>): void {
  // A Buffer as is, an ArrayBuffer as a view of it (no copy), fragments joined.
  const buf = Buffer.isBuffer(data)
    ? data
    : Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.from(data as ArrayBuffer);
  if (!buf.includes('"Target.attachedToTarget"') && !buf.includes('"Target.detachedFromTarget"')) return;
  try {
    const msg = JSON.parse(buf.toString()) as {
      method?: string;
      params?: { sessionId?: string; targetInfo?: { targetId?: string } };
    };
    const sessionId = msg.params?.sessionId;
    if (typeof sessionId !== 'string') return;
    if (msg.method === 'Target.attachedToTarget' && typeof msg.params?.targetInfo?.targetId === 'string')
      attached.set(sessionId, msg.params.targetInfo.targetId);
    else if (msg.method === 'Target.detachedFromTarget') attached.delete(sessionId);
  } catch {
    // not JSON: nothing to track
  }
}
