import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBrowserPool, type PoolHarness } from '../support/pool-harness';

jest.setTimeout(60_000);

/** A page with a known brand: custom properties, web-safe fonts, buttons, an input, logo and icons. */
const BRANDED = `<!doctype html><html lang="en"><head><title>Acme Rockets</title>
<meta property="og:site_name" content="Acme">
<meta property="og:image" content="/og.png">
<link rel="icon" href="/favicon.ico"><link rel="apple-touch-icon" href="/touch.png">
<style>
:root { --color-primary: #ff5a1f; --accent: rgb(16, 185, 129); --danger: #dc2626; --text-muted: #6b7280; }
body { margin: 0; background: #ffffff; color: #111827; font: 16px/1.5 Georgia, serif; }
header { height: 64px; display: flex; align-items: center; padding: 0 24px; }
main { max-width: 960px; margin: 0 auto; padding: 16px; }
h1 { font: 700 40px/1.2 "Courier New", monospace; margin: 0 0 16px; }
h2 { font-size: 28px; } h3 { font-size: 20px; font-weight: 500; }
p { margin: 0 0 16px; } .muted { color: #6b7280; }
a { color: #2563eb; }
.btn { display: inline-block; padding: 12px 24px; border-radius: 8px; transition: background 150ms ease-in-out; }
.btn-primary { background: #ff5a1f; color: #ffffff; border: 0; }
.btn-secondary { background: transparent; color: #ff5a1f; border: 2px solid #ff5a1f; }
input { padding: 8px 12px; border: 1px solid #d1d5db; border-radius: 8px; background: #f9fafb; color: #111827; }
code { font-family: "Courier New", monospace; }
</style></head><body>
<header><a href="/"><img class="site-logo" src="/logo.png" alt="Acme logo" width="120" height="32"></a></header>
<main>
<h1>Rockets for everyone</h1><h2>Fast</h2><h3>Safe</h3>
<p>Our rockets are the best rockets in the whole <a href="/about">known world</a>, and we say so often.</p>
<p class="muted">Secondary text tells you the small print about rockets and launches.</p>
<p><code>launch()</code> starts it.</p>
<button class="btn btn-primary">Buy now</button> <button class="btn btn-primary">Order</button>
<a class="btn btn-secondary" href="/learn">Learn more</a>
<input type="email" placeholder="you@example.com">
</main></body></html>`;

const DARK = `<!doctype html><html><head><title>Dark</title><style>
body { background: #0b1020; color: #e5e7eb; font-family: Arial, sans-serif; }</style></head>
<body><p>Dark themed page with plenty of light text on a dark background.</p></body></html>`;

describe('browser-pool: the branding probe on a rendered page (real Chromium)', () => {
  let pool: PoolHarness;
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/dark') return res.writeHead(200, { 'content-type': 'text/html' }).end(DARK);
      if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(BRANDED);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    pool = await startBrowserPool({ WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${port}` });
  }, 60_000);
  afterAll(async () => {
    await pool?.stop();
    await new Promise((r) => server?.close(r));
  });

  it('computes colours, fonts, typography, spacing, components and images of a branded page', async () => {
    const r = await pool.render({ url: `${base}/`, branding: true });
    const b = r.branding!;
    expect(b.colorScheme).toBe('light');
    expect(b.brandName).toBe('Acme');
    expect(b.colors).toEqual({
      primary: '#FF5A1F',
      secondary: '#FF5A1F',
      accent: '#10B981',
      background: '#FFFFFF',
      textPrimary: '#111827',
      textSecondary: '#6B7280',
      link: '#2563EB',
      error: '#DC2626',
    });
    expect(b.fonts?.map((f) => f.family)).toEqual(expect.arrayContaining(['Georgia', 'Courier New']));
    expect(b.typography).toEqual({
      fontFamilies: { primary: 'Georgia', heading: 'Courier New', code: 'Courier New' },
      fontSizes: { body: '16px', h1: '40px', h2: '28px', h3: '20px' },
      fontWeights: { regular: 400, bold: 700, medium: 500 },
      lineHeights: { body: 1.5, heading: 1.2 },
    });
    // Paddings and margins of 12, 16, 20, 24px: multiples of 4, not all of 8.
    expect(b.spacing).toMatchObject({
      baseUnit: 4,
      borderRadius: '8px',
      padding: { button: '12px 24px', input: '8px 12px' },
    });
    expect(b.components?.buttonPrimary).toEqual({
      background: '#FF5A1F',
      textColor: '#FFFFFF',
      borderRadius: '8px',
    });
    expect(b.components?.buttonSecondary).toEqual({
      background: 'transparent',
      textColor: '#FF5A1F',
      borderColor: '#FF5A1F',
      borderRadius: '8px',
    });
    expect(b.components?.input).toMatchObject({
      background: '#F9FAFB',
      borderColor: '#D1D5DB',
      borderRadius: '8px',
    });
    expect(b.images).toEqual({
      logo: `${base}/logo.png`,
      favicon: `${base}/favicon.ico`,
      ogImage: `${base}/og.png`,
    });
    expect(b.logo).toBe(`${base}/logo.png`);
    expect(b.icons).toEqual({ favicon: `${base}/favicon.ico`, appleTouchIcon: `${base}/touch.png` });
    expect(b.animations).toEqual({ transitionDuration: '0.15s', transitionEasing: 'ease-in-out' });
    expect(b.layout).toMatchObject({ headerHeight: '64px', contentMaxWidth: '960px' });
    // The palette beside the profile (input of the scraper's optional LLM roles pass): the page's
    // colours with their uses, never part of the public profile.
    expect(b).not.toHaveProperty('palette');
    const palette = r.brandingPalette!;
    const colour = (c: string) => palette.find((p) => p.color === c);
    expect(colour('#FF5A1F')).toMatchObject({ cssVariables: ['--color-primary'] });
    expect(colour('#FF5A1F')!.button).toBeGreaterThanOrEqual(3);
    expect(colour('#2563EB')!.link).toBeGreaterThan(0);
    expect(colour('#111827')!.text).toBeGreaterThan(0);
    expect(colour('#FFFFFF')!.background).toBeGreaterThan(0);
    expect(colour('#DC2626')).toMatchObject({ cssVariables: ['--danger'] });
    expect(colour('#10B981')).toMatchObject({ cssVariables: ['--accent'] });
    for (const c of ['#6B7280', '#D1D5DB', '#F9FAFB']) expect(colour(c)).toBeDefined();
    expect(palette.length).toBeLessThanOrEqual(16);
    // Deterministic: the same page gives the same profile and palette.
    const again = await pool.render({ url: `${base}/`, branding: true });
    expect(again.branding).toEqual(b);
    expect(again.brandingPalette).toEqual(palette);
    // Not asked for: not computed.
    const plain = await pool.render({ url: `${base}/` });
    expect(plain.branding).toBeUndefined();
    expect(plain.brandingPalette).toBeUndefined();
  });

  it('reports a dark colour scheme and leaves out what the page does not have (never null colours)', async () => {
    const b = (await pool.render({ url: `${base}/dark`, branding: true })).branding!;
    expect(b.colorScheme).toBe('dark');
    expect(b.colors).toEqual({ background: '#0B1020', textPrimary: '#E5E7EB' });
    expect(b.images).toEqual({ logo: null, favicon: null, ogImage: null });
    expect(b.components).toEqual({});
    expect(b.logo).toBeUndefined();
  });
});
