import { randomBytes } from 'node:crypto';
import type { LiveViewMode } from '@wds/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers a live-view page request with the page in `mode`: a fresh nonce for its script and style,
 * and the headers of `liveViewHeaders` (framing by `frameAncestors`).
 */
export function serveLiveViewPage(
  req: FastifyRequest,
  reply: FastifyReply,
  mode: LiveViewMode,
  frameAncestors: string,
): string {
  const nonce = randomBytes(16).toString('base64');
  void reply.headers(liveViewHeaders(nonce, frameAncestors, `${req.protocol}://${req.host}`));
  return liveViewPage(mode, nonce);
}

/**
 * The live-view page: self-contained (no external asset), it opens `<its own URL>/ws`, draws each
 * JPEG frame on a canvas and, in the interactive mode only, sends mouse, wheel and keyboard events
 * in the page's CSS pixels (the frame's width/height name the viewport). `nonce` allows its one
 * script and style under the CSP of `liveViewHeaders`.
 */
export function liveViewPage(mode: LiveViewMode, nonce: string): string {
  const interactive = mode === 'interactive';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${interactive ? 'Interactive live view' : 'Live view'}</title>
<style nonce="${nonce}">
html,body{margin:0;height:100%;background:#111;overflow:hidden}
body{display:flex;align-items:center;justify-content:center}
canvas{max-width:100vw;max-height:100vh;outline:none;${interactive ? 'cursor:default' : 'pointer-events:none'}}
#status{position:fixed;left:8px;bottom:8px;font:12px system-ui,sans-serif;color:#ddd;background:#0009;padding:2px 6px;border-radius:3px}
</style></head>
<body data-state="connecting" data-frames="0" data-mode="${mode}">
<canvas id="view" width="1" height="1" tabindex="0"></canvas><div id="status">connecting…</div>
<script nonce="${nonce}">
(() => {
  const interactive = ${interactive ? 'true' : 'false'};
  const canvas = document.getElementById('view');
  const ctx = canvas.getContext('2d');
  const status = document.getElementById('status');
  const wsUrl = location.href.replace(/[?#].*$/, '').replace(/\\/+$/, '').replace(/^http/, 'ws') + '/ws';
  let ws, viewport = { width: 1, height: 1 }, frames = 0, retries = 0, drawing = false, next = null;
  const state = (s, text) => { document.body.dataset.state = s; status.textContent = text; };
  const draw = (f) => {
    if (drawing) { next = f; return; }
    drawing = true;
    const img = new Image();
    img.onload = () => {
      if (canvas.width !== img.naturalWidth || canvas.height !== img.naturalHeight) {
        canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
      }
      ctx.drawImage(img, 0, 0);
      document.body.dataset.frames = String(++frames);
      drawing = false;
      if (next) { const n = next; next = null; draw(n); }
    };
    img.onerror = () => { drawing = false; };
    img.src = 'data:image/jpeg;base64,' + f.data;
  };
  const connect = () => {
    ws = new WebSocket(wsUrl);
    ws.onopen = () => { retries = 0; state('live', interactive ? 'live · interactive' : 'live · view only'); };
    ws.onmessage = (m) => {
      if (typeof m.data !== 'string') return;
      const f = JSON.parse(m.data);
      if (f.type !== 'frame') return;
      viewport = { width: f.width, height: f.height };
      document.body.dataset.viewport = f.width + 'x' + f.height;
      draw(f);
    };
    ws.onclose = () => {
      if (retries++ < 5) { state('connecting', 'reconnecting…'); setTimeout(connect, 500 * 2 ** retries); }
      else state('ended', 'session ended');
    };
  };
  connect();
  if (!interactive) return;
  const send = (e) => { if (ws && ws.readyState === 1) ws.send(JSON.stringify(e)); };
  const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  const at = (e) => {
    const r = canvas.getBoundingClientRect();
    return { x: ((e.clientX - r.left) / r.width) * viewport.width, y: ((e.clientY - r.top) / r.height) * viewport.height };
  };
  const buttons = ['left', 'middle', 'right'];
  const mouse = (type) => (e) => {
    e.preventDefault();
    if (type === 'mousePressed') canvas.focus();
    send({ type, ...at(e), button: type === 'mouseMoved' ? 'none' : buttons[e.button] || 'none',
      clickCount: type === 'mouseMoved' ? 0 : Math.min(3, Math.max(1, e.detail)), modifiers: mods(e) });
  };
  canvas.addEventListener('mousedown', mouse('mousePressed'));
  canvas.addEventListener('mouseup', mouse('mouseReleased'));
  let moved = null;
  canvas.addEventListener('mousemove', (e) => {
    if (!moved) requestAnimationFrame(() => { send({ type: 'mouseMoved', ...at(moved), button: 'none', clickCount: 0, modifiers: mods(moved) }); moved = null; });
    moved = e;
  });
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const k = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? viewport.height : 1;
    send({ type: 'mouseWheel', ...at(e), deltaX: e.deltaX * k, deltaY: e.deltaY * k, modifiers: mods(e) });
  }, { passive: false });
  const key = (type) => (e) => {
    e.preventDefault();
    send({ type, key: e.key.slice(0, 32), code: e.code.slice(0, 32), keyCode: e.keyCode & 255, modifiers: mods(e) });
  };
  canvas.addEventListener('keydown', key('keyDown'));
  canvas.addEventListener('keyup', key('keyUp'));
  canvas.addEventListener('paste', (e) => {
    e.preventDefault();
    const text = (e.clipboardData && e.clipboardData.getData('text')) || '';
    if (text) send({ type: 'insertText', text: text.slice(0, 1000) });
  });
})();
</script></body></html>`;
}

/**
 * Headers of the page: its own script/style only (by nonce), images from data: URLs, connections
 * only back to its own origin's WebSocket, framing by `frameAncestors`, and no Referer (the URL
 * holds the view token).
 */
export function liveViewHeaders(
  nonce: string,
  frameAncestors: string,
  origin: string,
): Record<string, string> {
  const ws = origin.replace(/^http/, 'ws');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      'img-src data:',
      `connect-src 'self' ${ws}`,
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${frameAncestors}`,
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}
