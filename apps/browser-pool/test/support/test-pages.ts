import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestPages {
  url: string;
  port: number;
  hits(path: string): number;
  close(): Promise<void>;
}

/** Pages for browser features the shared fixture site does not have (forms, emulation probes, ads). */
export function pages(other: () => string): Record<string, string> {
  return {
    '/actions': `<!doctype html><html><head><title>Actions</title></head><body style="height:4000px">
<h1>Actions page</h1>
<button id="go" onclick="document.getElementById('out').textContent='clicked ' + (++window.clicks)">Go</button>
<button class="many" onclick="window.many = (window.many || 0) + 1">A</button>
<button class="many" onclick="window.many = (window.many || 0) + 1">B</button>
<input id="name" autofocus>
<div id="out"></div><div id="late"></div><div id="pressed"></div>
<script>
  window.clicks = 0;
  document.getElementById('name').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') document.getElementById('pressed').textContent = 'entered ' + e.target.value;
  });
  setTimeout(() => { document.getElementById('late').innerHTML = '<p class="late">late content</p>'; }, 300);
</script></body></html>`,
    '/probe': `<!doctype html><html><head><title>Probe</title><meta name="viewport" content="width=device-width, initial-scale=1"></head><body><pre id="probe"></pre><script>
  document.getElementById('probe').textContent = JSON.stringify({
    ua: navigator.userAgent, language: navigator.language, width: window.innerWidth,
    touch: navigator.maxTouchPoints, tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
</script></body></html>`,
    '/ads': `<!doctype html><html><head><title>Ads</title>
<script src="https://securepubads.g.doubleclick.net/tag/js/gpt.js"></script>
<script src="https://www.google-analytics.com/analytics.js"></script></head>
<body><p>Content with ads</p><div class="cookie-banner">We use cookies</div>
<img src="https://pagead2.googlesyndication.com/pagead/show_ads.gif"></body></html>`,
    '/private-subresources': `<!doctype html><html><head><title>Private</title></head><body><p>Page</p>
<img src="${other()}/pixel.png"><script src="${other()}/script.js"></script>
<iframe src="http://10.255.255.1/"></iframe>
<script>
  const ws = new WebSocket('${other().replace('http', 'ws')}/socket');
  ws.onclose = () => { document.body.dataset.ws = 'refused'; };
  ws.onopen = () => { document.body.dataset.ws = 'open'; };
  fetch('${other()}/api').then(() => { document.body.dataset.fetch = 'ok'; }, () => { document.body.dataset.fetch = 'refused'; });
</script></body></html>`,
    '/consent': `<!doctype html><html><head><title>Consent</title></head><body><p>Article behind a consent dialog</p>
<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" style="position:fixed;bottom:0;left:0;right:0;background:#fff">
We and our 812 partners use cookies.
<button id="onetrust-accept-btn-handler" onclick="document.cookie='consent=accepted';this.parentNode.remove()">Accept all</button>
<button id="onetrust-reject-all-handler" onclick="document.cookie='consent=rejected';this.parentNode.remove()">Reject all</button>
</div></div></body></html>`,
    '/profile': `<!doctype html><html><head><title>Profile</title></head><body><p>Profile page</p></body></html>`,
    '/tall': `<!doctype html><html><body style="margin:0"><div style="height:3000px;background:#eee">Tall</div></body></html>`,
  };
}

/** A tiny site on 127.0.0.1; `other` gives the base URL of a second server pages may refer to. */
export async function startTestPages(other: () => string = () => 'http://127.0.0.1:9'): Promise<TestPages> {
  const counts = new Map<string, number>();
  const table = pages(other);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const body = table[path];
    if (path === '/redirect-https-private') {
      // HTTPS hop into a private address: only the policy proxy sees it (a CONNECT it refuses).
      res.writeHead(302, { location: 'https://10.255.255.1/' }).end();
      return;
    }
    if (path === '/set-cookie') {
      res.setHeader('set-cookie', 'session=abc123; Path=/; Max-Age=3600');
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>cookie set</body></html>');
      return;
    }
    res.statusCode = body ? 200 : 404;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(body ?? '<html><body>not found</body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits: (p) => counts.get(p) ?? 0,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
