import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LiveViewMode } from '@wds/contracts';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { defaultChromiumPath } from '../../src/pool/browser-launcher';
import { ATTACH_ATTEMPTS, LiveViews } from '../../src/sessions/live-view';

// A live view on a real Chromium page whose attach fails: a viewer must get frames once the page
// can be shown, or a 1011 close (the live-view page reconnects on a close), never an open socket
// without frames. The failure is real: the page handed to the view was closed before it attaches.

jest.setTimeout(120_000);

interface Frame {
  type: string;
  width: number;
  height: number;
}

describe('live views: a page that cannot be attached', () => {
  let browser: Browser;
  let server: http.Server;
  let views: LiveViews | undefined;
  let port: number;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: defaultChromiumPath() });
    server = http.createServer((_req, res) => res.writeHead(404).end());
    server.on('upgrade', (req, socket, head) => {
      const mode: LiveViewMode = req.url === '/interactive' ? 'interactive' : 'view';
      if (views) views.upgrade(req, socket, head, mode);
      else socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    views?.close();
    views = undefined;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await browser?.close();
  });

  /** A still white page (Chromium sends screencast frames on repaints only). */
  const stillPage = async (): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 400, height: 300 } });
    await page.setContent('<body style="margin:0;background:#fff"><p>still</p></body>');
    return page;
  };
  const closedPage = async (): Promise<Page> => {
    const page = await browser.newPage();
    await page.close();
    return page;
  };

  /** A viewer socket whose frames and close are recorded from its creation on. */
  const connect = (path = '/read-only') => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    const frames: Frame[] = [];
    const firstFrame = new Promise<Frame>((resolve) =>
      ws.on('message', (data: Buffer) => {
        const f = JSON.parse(data.toString()) as Frame;
        frames.push(f);
        if (f.type === 'frame') resolve(f);
      }),
    );
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    return { ws, frames, firstFrame, closed };
  };
  /** The first of `p` and a deadline (the deadline answers `undefined`). */
  const within = async <T>(p: Promise<T>, ms: number): Promise<T | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
    try {
      return await Promise.race([p, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };

  it('retries a failed attach: the viewer of a still page gets its first frame', async () => {
    const page = await stillPage();
    let calls = 0;
    const failures: unknown[] = [];
    // The first attach gets a closed page (CDP session creation fails for real); the next, the page.
    views = new LiveViews(
      async () => (++calls === 1 ? closedPage() : page),
      () => undefined,
      undefined,
      (err) => failures.push(err),
    );
    const v = connect();
    const frame = await within(v.firstFrame, 30_000);
    expect(frame).toEqual({ type: 'frame', width: 400, height: 300, data: expect.any(String) });
    expect(calls).toBe(2);
    expect(failures).toEqual([]);
    expect(views.count).toBe(1);
    v.ws.close();
    await v.closed;
    await page.close();
  });

  it('closes the socket with 1011 once every attempt failed, and frees the place', async () => {
    let calls = 0;
    const failures: unknown[] = [];
    views = new LiveViews(
      async () => {
        calls++;
        return closedPage();
      },
      () => undefined,
      undefined,
      (err) => failures.push(err),
    );
    const v = connect('/interactive');
    const closed = await within(v.closed, 30_000);
    expect(closed).toEqual({ code: 1011, reason: 'the page could not be shown' });
    expect(v.frames).toEqual([]);
    expect(calls).toBe(ATTACH_ATTEMPTS);
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/closed/i);
    await new Promise((r) => setTimeout(r, 100));
    expect(views.count).toBe(0);
  });

  it('shows a page that attaches at once without a retry', async () => {
    const page = await stillPage();
    let calls = 0;
    views = new LiveViews(
      async () => {
        calls++;
        return page;
      },
      () => undefined,
    );
    const v = connect();
    expect(await within(v.firstFrame, 30_000)).toMatchObject({ type: 'frame', width: 400, height: 300 });
    expect(calls).toBe(1);
    v.ws.close();
    await v.closed;
    await page.close();
  });
});
