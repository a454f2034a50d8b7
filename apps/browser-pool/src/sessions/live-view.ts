import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { LiveViewInput, type LiveViewMode } from '@wds/contracts';
import type { CDPSession, Page } from 'playwright-core';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

/** Bounds of the live views of one session. */
export interface LiveViewSettings {
  /** Viewers at once (both modes together); beyond, the upgrade is refused with 429. */
  maxViewers: number;
  /** Frames per second at most, per viewer (the ack of a frame is delayed to keep to it). */
  maxFps: number;
  /** JPEG quality (0–100) and the largest frame Chromium sends. */
  quality: number;
  maxWidth: number;
  maxHeight: number;
}

export const DEFAULT_LIVE_VIEW_SETTINGS: LiveViewSettings = {
  maxViewers: 5,
  maxFps: 10,
  quality: 60,
  maxWidth: 1280,
  maxHeight: 1280,
};

/** A viewer whose socket has this much unsent data gets no new frame until it catches up. */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;

/**
 * Tries to show the active page to a viewer (CDP session, screencast, first screenshot) before the
 * viewer's socket is closed with 1011, so that a view never stays open without frames; the live-view
 * page reconnects on a close. The n-th retry waits n × ATTACH_RETRY_MS.
 */
export const ATTACH_ATTEMPTS = 3;
const ATTACH_RETRY_MS = 250;

type Shown = { page: Page; cdp: CDPSession };

interface ScreencastFrame {
  data: string;
  sessionId: number;
  metadata: { deviceWidth: number; deviceHeight: number };
}

/**
 * The live views of one session: each viewer's WebSocket gets the page's CDP screencast (JPEG frames
 * as JSON text `{type:"frame", data, width, height}`, width/height = the viewport in CSS pixels),
 * through a CDP session of the replica's own, never the viewer's. The interactive view's messages
 * are parsed against `LiveViewInput` and each becomes exactly one `Input.*` call; the read-only
 * view's messages, and anything else, are dropped.
 */
export class LiveViews {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    perMessageDeflate: false,
  });
  private readonly viewers = new Set<WebSocket>();
  private readonly followers = new Set<() => void>();
  private closed = false;

  constructor(
    /** The page the session shows now (LiveSession.page: the active one). */
    private readonly page: () => Promise<Page>,
    /** Called for every input the interactive view forwards (the session's activity clock). */
    private readonly onInput: () => void,
    private readonly settings: LiveViewSettings = DEFAULT_LIVE_VIEW_SETTINGS,
    /** Called when a viewer's socket is closed because the page could not be shown to it. */
    private readonly onAttachFailed: (err: unknown) => void = () => undefined,
  ) {}

  get count(): number {
    return this.viewers.size;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, mode: LiveViewMode): void {
    if (this.closed) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    if (this.viewers.size >= this.settings.maxViewers) {
      socket.end('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => void this.attach(ws, mode));
  }

  close(): void {
    this.closed = true;
    for (const ws of this.viewers) ws.close(1001, 'session ended');
    this.wss.close();
  }

  /** The session's active page changed (a tab opened or the shown one closed): views follow it. */
  activePageChanged(): void {
    for (const follow of this.followers) follow();
  }

  private async attach(ws: WebSocket, mode: LiveViewMode): Promise<void> {
    this.viewers.add(ws);
    // The CDP session on the page shown now; replaced when the session's active page changes.
    let current: Shown | undefined;
    let switching: Promise<void> = Promise.resolve();
    const stop = (c = current) => {
      if (!c) return;
      if (current === c) current = undefined;
      void c.cdp.detach().catch(() => undefined);
    };
    const follow = () => {
      switching = switching.then(() =>
        this.showRetrying(
          ws,
          (c) => (current = c),
          () => current,
          stop,
        ),
      );
    };
    const end = () => {
      this.followers.delete(follow);
      this.viewers.delete(ws);
      if (ws.readyState === WebSocket.OPEN) ws.close(1001, 'view ended');
      stop();
    };
    ws.on('close', end);
    ws.on('error', end);
    // Input goes to the page shown at the time; while a page is being attached it waits (in order).
    ws.on('message', (data, isBinary) => {
      if (mode !== 'interactive' || isBinary) return;
      void switching.then(() => (current ? this.input(current.cdp, data) : undefined));
    });
    this.followers.add(follow);
    follow();
  }

  /**
   * `show`, tried up to ATTACH_ATTEMPTS times (the page may close or be busy while it is attached);
   * then the viewer's socket is closed with 1011 rather than left open without a frame.
   */
  private async showRetrying(
    ws: WebSocket,
    set: (c: Shown) => void,
    shown: () => Shown | undefined,
    stop: (c?: Shown) => void,
  ): Promise<void> {
    for (let attempt = 1; ws.readyState === WebSocket.OPEN; attempt++) {
      try {
        await this.show(ws, set, shown(), stop);
        return;
      } catch (err) {
        if (ws.readyState !== WebSocket.OPEN) return;
        if (attempt >= ATTACH_ATTEMPTS) {
          this.onAttachFailed(err);
          ws.close(1011, 'the page could not be shown');
          return;
        }
        await new Promise((r) => setTimeout(r, ATTACH_RETRY_MS * attempt));
      }
    }
  }

  /**
   * Streams the session's active page to the viewer: a CDP session of its own on that page, the
   * screencast, and a screenshot first (Chromium sends frames on repaints only, so a viewer of a
   * still page would wait for the next change). The previous page's CDP session is detached; when
   * any step fails, this one's is too and the error is thrown.
   */
  private async show(
    ws: WebSocket,
    set: (c: Shown) => void,
    previous: Shown | undefined,
    stop: (c?: Shown) => void,
  ): Promise<void> {
    if (ws.readyState !== WebSocket.OPEN) return;
    const page = await this.page();
    if (previous && previous.page === page) return;
    stop(previous);
    const session = await page.context().newCDPSession(page);
    if (ws.readyState !== WebSocket.OPEN) {
      void session.detach().catch(() => undefined);
      return;
    }
    const shown: Shown = { page, cdp: session };
    set(shown);
    try {
      const s = this.settings;
      const interval = 1000 / s.maxFps;
      let lastFrame = 0;
      let framed = false;
      session.on('Page.screencastFrame', (frame: ScreencastFrame) => {
        const now = Date.now();
        const wait = Math.max(0, lastFrame + interval - now);
        lastFrame = now + wait;
        setTimeout(() => {
          void session.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
        }, wait);
        if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
        framed = true;
        ws.send(
          JSON.stringify({
            type: 'frame',
            data: frame.data,
            width: frame.metadata.deviceWidth,
            height: frame.metadata.deviceHeight,
          }),
        );
      });
      await session.send('Page.startScreencast', {
        format: 'jpeg',
        quality: s.quality,
        maxWidth: s.maxWidth,
        maxHeight: s.maxHeight,
        everyNthFrame: 1,
      });
      const [shot, metrics] = await Promise.all([
        session.send('Page.captureScreenshot', { format: 'jpeg', quality: s.quality }),
        session.send('Page.getLayoutMetrics'),
      ]);
      if (!framed && ws.readyState === WebSocket.OPEN) {
        ws.send(
          JSON.stringify({
            type: 'frame',
            data: shot.data,
            width: metrics.cssLayoutViewport.clientWidth,
            height: metrics.cssLayoutViewport.clientHeight,
          }),
        );
      }
    } catch (err) {
      stop(shown);
      throw err;
    }
  }

  /** One whitelisted input → one CDP Input call; anything that does not parse is ignored. */
  private async input(cdp: CDPSession, data: RawData): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(data.toString());
    } catch {
      return;
    }
    const parsed = LiveViewInput.safeParse(raw);
    if (!parsed.success) return;
    const e = parsed.data;
    this.onInput();
    try {
      switch (e.type) {
        case 'mousePressed':
        case 'mouseReleased':
        case 'mouseMoved':
          await cdp.send('Input.dispatchMouseEvent', {
            type: e.type,
            x: e.x,
            y: e.y,
            button: e.button,
            clickCount: e.clickCount,
            modifiers: e.modifiers,
          });
          break;
        case 'mouseWheel':
          await cdp.send('Input.dispatchMouseEvent', {
            type: 'mouseWheel',
            x: e.x,
            y: e.y,
            deltaX: e.deltaX,
            deltaY: e.deltaY,
            modifiers: e.modifiers,
          });
          break;
        case 'keyDown':
        case 'keyUp': {
          // A printable key (one character, no Ctrl/Alt/Meta) types its character on keyDown.
          const text =
            e.type === 'keyDown' && (e.modifiers & 0b1011) === 0
              ? [...e.key].length === 1
                ? e.key
                : e.key === 'Enter'
                  ? '\r'
                  : undefined
              : undefined;
          await cdp.send('Input.dispatchKeyEvent', {
            type: text !== undefined ? 'keyDown' : e.type === 'keyDown' ? 'rawKeyDown' : 'keyUp',
            key: e.key,
            code: e.code,
            windowsVirtualKeyCode: e.keyCode,
            modifiers: e.modifiers,
            ...(text !== undefined ? { text, unmodifiedText: text } : {}),
          });
          break;
        }
        case 'insertText':
          await cdp.send('Input.insertText', { text: e.text });
          break;
      }
    } catch {
      // The page navigated or closed under the event: nothing to do.
    }
  }
}
