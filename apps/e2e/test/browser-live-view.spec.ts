import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { callApi, listenLocal, type LocalServer } from './support/http';
import { startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// Live views of browser sessions through the whole stack: the liveViewUrl / interactiveLiveViewUrl
// pages opened in a separate headless Chromium (the viewer), the screencast they draw, the input the
// interactive one forwards and the read-only one does not, and the tokens that open (or not) them.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-live-view-${randomBytes(16).toString('hex')}`;
const VIEWER_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function startSite(): Promise<LocalServer> {
  return listenLocal((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/html' });
    if (url.pathname === '/embed') {
      // Another origin showing a live view in an iframe.
      res.end(
        `<!doctype html><iframe id="v" width="800" height="500" src="${url.searchParams.get('src')}"></iframe>`,
      );
      return;
    }
    res.end(`<!doctype html><html><head><title>Live</title><style>body{margin:0;background:rgb(255,255,255)}
      button{position:absolute;left:100px;top:100px;width:200px;height:80px}#q{position:absolute;left:100px;top:300px}</style></head>
      <body><button id="inc" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">+1</button>
      <span id="n">0</span><input id="q"></body></html>`);
  });
}

/** Mean colour of the canvas of a live-view page (a function: the page's CSP forbids string eval). */
function canvasColour(): number[] {
  const c = document.getElementById('view') as HTMLCanvasElement;
  const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
  let r = 0;
  let g = 0;
  let b = 0;
  for (let i = 0; i < d.length; i += 4) {
    r += d[i];
    g += d[i + 1];
    b += d[i + 2];
  }
  const n = d.length / 4;
  return [r / n, g / n, b / n];
}

/** Whether the canvas is mostly green (the session page's body turned rgb(0,160,0)). */
function canvasIsGreen(): boolean {
  const c = document.getElementById('view') as HTMLCanvasElement;
  const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
  let green = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 1] > 100 && d[i] < 100 && d[i + 2] < 100) green++;
  return green > d.length / 4 / 2;
}

/** Whether the canvas is mostly white (the session's first page). */
function canvasIsWhite(): boolean {
  const c = document.getElementById('view') as HTMLCanvasElement;
  const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
  let white = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] > 200 && d[i + 2] > 200) white++;
  return white > d.length / 4 / 2;
}

describe('live views of browser sessions through the stack', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: LocalServer;
  let viewer: Browser;

  const call = (method: string, route: string, body?: unknown, key: string | undefined = KEY) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 120_000 });
  const execute = async (id: string, code: string): Promise<string> => {
    const r = await call('POST', `/v2/browser/${id}/execute`, { code, language: 'node' });
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    return String(r.body.result);
  };
  /** Polls the session until `code` gives `want` (a positive barrier with a generous deadline). */
  const until = async (id: string, code: string, want: string): Promise<void> => {
    const deadline = Date.now() + 60_000;
    let last = '';
    while (Date.now() < deadline) {
      last = await execute(id, code);
      if (last === want) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${code} stayed ${last}, not ${want}`);
  };
  const live = async (page: Page) =>
    page.waitForFunction(
      () => document.body.dataset.state === 'live' && Number(document.body.dataset.frames) > 0,
      undefined,
      {
        timeout: 60_000,
      },
    );
  const createSession = async () => {
    const r = await call('POST', '/v2/browser', { ttl: 300, activityTtl: 120 });
    expect(r.status).toBe(200);
    const s = r.body as { id: string; cdpUrl: string; liveViewUrl: string; interactiveLiveViewUrl: string };
    await execute(s.id, `await page.goto('${site.url}/live'); await page.title()`);
    return s;
  };
  /** The first screencast frame of each raw view socket, listened for from the socket's creation. */
  const frames = new WeakMap<WebSocket, Promise<{ width: number; height: number }>>();
  /**
   * Opens a raw view WebSocket; resolves once open, rejects when refused. Its frames are listened for
   * at once: the first one can come in the same read as the handshake's 101 (the gateway splices the
   * bytes), and `ws` emits it before a listener added after `open` would be.
   */
  const openSocket = (pageUrl: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${pageUrl.replace(/^http/, 'ws')}/ws`);
      const first = new Promise<{ width: number; height: number }>((resolveFrame, rejectFrame) => {
        const onMessage = (data: Buffer) => {
          const f = JSON.parse(data.toString()) as { type: string; width: number; height: number };
          if (f.type !== 'frame') return;
          ws.off('message', onMessage);
          resolveFrame(f);
        };
        ws.on('message', onMessage);
        ws.once('close', (code, reason) =>
          rejectFrame(new Error(`view closed (${code} ${reason.toString()}) before a frame`)),
        );
      });
      first.catch(() => undefined);
      frames.set(ws, first);
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
      ws.once('error', reject);
    });
  /** The first screencast frame a raw view socket received, within 60 s. */
  const firstFrame = async (ws: WebSocket) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no frame within 60 s')), 60_000);
    });
    try {
      return await Promise.race([frames.get(ws)!, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
  const click = (x: number, y: number) => [
    { type: 'mousePressed', x, y, button: 'left', clickCount: 1 },
    { type: 'mouseReleased', x, y, button: 'left', clickCount: 1 },
  ];

  beforeAll(async () => {
    site = await startSite();
    e2e = await startSiteStack({
      name: 'browser-live-view',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      sites: [site],
      env: { WDS_BROWSER_PROCESSES: '1' },
    });
    stack = e2e.stack;
    const executablePath = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((p) =>
      fs.existsSync(p),
    );
    viewer = await chromium.launch({ executablePath, args: VIEWER_FLAGS });
  }, READY_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await viewer?.close().catch(() => undefined);
    await e2e?.stop();
    await site?.close();
  }, 60_000);

  it('shows the page read-only: frames follow execute, input is ignored; the interactive view clicks and types', async () => {
    const s = await createSession();
    const base = `http://127.0.0.1:${e2e!.port}/v2/browser/${s.id}/live/`;
    expect(s.liveViewUrl.startsWith(base)).toBe(true);
    expect(s.interactiveLiveViewUrl.startsWith(base)).toBe(true);
    expect(s.liveViewUrl).not.toBe(s.interactiveLiveViewUrl);
    const token = s.cdpUrl.split('/cdp/')[1];
    expect(s.liveViewUrl).not.toContain(token);

    const res = await fetch(s.liveViewUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');

    const ro = await viewer.newPage();
    await ro.goto(s.liveViewUrl);
    await live(ro);
    const white = await ro.evaluate(canvasColour);
    expect(Math.min(...white)).toBeGreaterThan(200);
    // The page changes through execute: the view's canvas turns green.
    await execute(s.id, "await page.evaluate(() => { document.body.style.background = 'rgb(0,160,0)' })");
    await ro.waitForFunction(canvasIsGreen, undefined, { timeout: 60_000 });

    // Raw sockets: the read-only one ignores input, the interactive one forwards the whitelist only.
    // Each socket is attached (a first frame came) before anything is sent on it, and everything the
    // read-only socket sends goes out before the interactive one's, whose last effect is the barrier.
    const roSocket = await openSocket(s.liveViewUrl);
    await firstFrame(roSocket);
    for (const e of click(200, 140)) roSocket.send(JSON.stringify(e));
    const rwSocket = await openSocket(s.interactiveLiveViewUrl);
    await firstFrame(rwSocket);
    for (const e of click(200, 140)) rwSocket.send(JSON.stringify(e));
    rwSocket.send(
      JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: "document.title='x'" } }),
    );
    rwSocket.send(JSON.stringify({ type: 'evaluate', expression: "document.title='y'" }));
    for (const e of click(150, 310)) rwSocket.send(JSON.stringify(e));
    rwSocket.send(JSON.stringify({ type: 'insertText', text: 'a' }));
    await until(s.id, "await page.inputValue('#q')", 'a');
    roSocket.send(JSON.stringify({ type: 'insertText', text: 'RO' }));
    rwSocket.send(JSON.stringify({ type: 'insertText', text: 'b' }));
    await until(s.id, "await page.inputValue('#q')", 'ab');
    expect(await execute(s.id, "await page.textContent('#n')")).toBe('1');
    expect(await execute(s.id, 'await page.title()')).toBe('Live');
    roSocket.close();
    rwSocket.close();
    await execute(s.id, "await page.fill('#q', '')");

    // The interactive page: a click on the button as drawn, then typing into the input.
    const rw = await viewer.newPage();
    await rw.goto(s.interactiveLiveViewUrl);
    await live(rw);
    const at = async (x: number, y: number) =>
      rw.evaluate(
        ([px, py]) => {
          const r = document.getElementById('view')!.getBoundingClientRect();
          const [w, h] = document.body.dataset.viewport!.split('x').map(Number);
          return { x: r.left + (px / w) * r.width, y: r.top + (py / h) * r.height };
        },
        [x, y],
      );
    const button = await at(200, 140);
    await rw.mouse.click(button.x, button.y);
    const input = await at(150, 310);
    await rw.mouse.click(input.x, input.y);
    await rw.keyboard.type('hi');
    await until(s.id, "await page.inputValue('#q')", 'hi');
    expect(await execute(s.id, "await page.textContent('#n')")).toBe('2');

    // The read-only page: clicks and keys on it change nothing (checked behind the interactive one's).
    await ro.mouse.click(button.x, button.y);
    await ro.keyboard.type('zz');
    await rw.keyboard.type('!');
    await until(s.id, "await page.inputValue('#q')", 'hi!');
    expect(await execute(s.id, "await page.textContent('#n')")).toBe('2');

    await ro.close();
    await rw.close();
    await call('DELETE', `/v2/browser/${s.id}`);
  }, 240_000);

  it('works in an iframe of another site', async () => {
    const s = await createSession();
    const page = await viewer.newPage();
    await page.goto(`${site.url}/embed?src=${encodeURIComponent(s.liveViewUrl)}`);
    const frame = await (await page.waitForSelector('#v')).contentFrame();
    await frame!.waitForFunction(() => Number(document.body?.dataset.frames) > 0, undefined, {
      timeout: 60_000,
    });
    await page.close();
    await call('DELETE', `/v2/browser/${s.id}`);
  }, 120_000);

  it('refuses wrong tokens, the CDP token as a view token and a view token as CDP; an ended session is dead', async () => {
    const s = await createSession();
    const cdpToken = s.cdpUrl.split('/cdp/')[1];
    const viewToken = s.liveViewUrl.split('/live/')[1];
    const wrong = s.liveViewUrl.replace(/\/live\/[^/]+$/, `/live/${randomBytes(32).toString('base64url')}`);
    const withCdpToken = s.liveViewUrl.replace(/\/live\/[^/]+$/, `/live/${cdpToken}`);
    for (const url of [wrong, withCdpToken]) {
      expect((await fetch(url)).status).toBe(404);
      await expect(openSocket(url)).rejects.toThrow('refused with 404');
    }
    await expect(
      chromium.connectOverCDP(s.cdpUrl.replace(/\/cdp\/[^/]+$/, `/cdp/${viewToken}`), { timeout: 10_000 }),
    ).rejects.toThrow();

    const open = await openSocket(s.liveViewUrl);
    const closed = new Promise<void>((resolve) => open.once('close', () => resolve()));
    expect((await call('DELETE', `/v2/browser/${s.id}`)).status).toBe(200);
    await closed;
    expect((await fetch(s.liveViewUrl)).status).toBe(404);
    await expect(openSocket(s.interactiveLiveViewUrl)).rejects.toThrow('refused with 404');
    const listed = await call('GET', '/v2/browser?status=destroyed');
    const ended = (listed.body.sessions as { id: string; liveViewUrl: string }[]).find((x) => x.id === s.id);
    expect(ended).toMatchObject({ liveViewUrl: '', interactiveLiveViewUrl: '' });
  }, 120_000);

  it('holds at most 5 viewers per session (429 beyond) and frees a place when one leaves', async () => {
    const s = await createSession();
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 5; i++) {
      const ws = await openSocket(i % 2 ? s.interactiveLiveViewUrl : s.liveViewUrl);
      await firstFrame(ws);
      sockets.push(ws);
    }
    await expect(openSocket(s.liveViewUrl)).rejects.toThrow('refused with 429');
    const gone = new Promise<void>((resolve) => sockets[0].once('close', () => resolve()));
    sockets[0].close();
    await gone;
    // The replica sees the close a moment later: a positive barrier, retried until a place is free.
    const deadline = Date.now() + 30_000;
    let sixth: WebSocket | undefined;
    while (!sixth && Date.now() < deadline) {
      sixth = await openSocket(s.liveViewUrl).catch(() => undefined);
      if (!sixth) await new Promise((r) => setTimeout(r, 200));
    }
    expect(sixth).toBeDefined();
    await firstFrame(sixth!);
    for (const ws of [...sockets.slice(1), sixth!]) ws.close();
    await call('DELETE', `/v2/browser/${s.id}`);
  }, 120_000);

  it('follows the page the session opened last, and the previous one once that closes', async () => {
    const s = await createSession();
    const ro = await viewer.newPage();
    await ro.goto(s.liveViewUrl);
    await live(ro);
    expect(Math.min(...(await ro.evaluate(canvasColour)))).toBeGreaterThan(200);
    // A tab the code opens becomes the one shown; the view stays open on it.
    await execute(
      s.id,
      `globalThis.tab = await context.newPage();
       await tab.setContent('<body style="margin:0;background:rgb(0,160,0)"><p>tab</p></body>');
       context.pages().length`,
    );
    // Positive barriers with room: at load 8-9 on two cores the switch once took over 60 s.
    await ro.waitForFunction(canvasIsGreen, undefined, { timeout: 120_000 }).catch(async () => {
      throw new Error(`canvas stayed ${JSON.stringify(await ro.evaluate(canvasColour))}`);
    });
    expect(await ro.evaluate(() => document.body.dataset.state)).toBe('live');
    // Closed, the first page (white) is shown again.
    await execute(s.id, 'await tab.close(); context.pages().length');
    await ro.waitForFunction(canvasIsWhite, undefined, { timeout: 120_000 }).catch(async () => {
      throw new Error(`canvas stayed ${JSON.stringify(await ro.evaluate(canvasColour))}`);
    });
    await ro.close();
    await call('DELETE', `/v2/browser/${s.id}`);
  }, 300_000);

  it('follows a page the code brings to the front (Playwright bringToFront in the session, and over cdpUrl)', async () => {
    const s = await createSession();
    const ro = await viewer.newPage();
    await ro.goto(s.liveViewUrl);
    await live(ro);
    // A second tab is opened (and shown), then the first one is brought to the front again.
    await execute(
      s.id,
      `globalThis.first = page;
       globalThis.tab = await context.newPage();
       await tab.setContent('<body style="margin:0;background:rgb(0,160,0)"><p>tab</p></body>');
       context.pages().length`,
    );
    await ro.waitForFunction(canvasIsGreen, undefined, { timeout: 120_000 });
    await execute(s.id, 'await first.bringToFront(); 1');
    await ro.waitForFunction(canvasIsWhite, undefined, { timeout: 120_000 }).catch(async () => {
      throw new Error(`canvas stayed ${JSON.stringify(await ro.evaluate(canvasColour))}`);
    });
    // The same from a client of the session's cdpUrl: the green tab is brought to the front.
    const remote = await chromium.connectOverCDP(s.cdpUrl);
    try {
      const pages = remote.contexts().flatMap((c) => c.pages());
      const texts = await Promise.all(pages.map((p) => p.textContent('body')));
      const tab = pages[texts.indexOf('tab')];
      expect(tab).toBeDefined();
      await tab.bringToFront();
      await ro.waitForFunction(canvasIsGreen, undefined, { timeout: 120_000 }).catch(async () => {
        throw new Error(`canvas stayed ${JSON.stringify(await ro.evaluate(canvasColour))}`);
      });
    } finally {
      await remote.close();
    }
    await ro.close();
    await call('DELETE', `/v2/browser/${s.id}`);
  }, 300_000);
});
