import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listenLocal, type LocalServer } from './support/http';
import { pythonSdk } from './support/python-sdk';
import { startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// The changeTracking, branding, attributes, audio and video formats through the whole stack
// (gateway → scraper → browser-pool → Chromium, PostgreSQL snapshots, ffmpeg, artifacts), driven by
// both official SDKs, as `npm start` runs it.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-formats-${randomBytes(16).toString('hex')}`;
const ADMIN = `admin-${randomBytes(16).toString('hex')}`;

const BRANDED = `<!doctype html><html><head><title>Acme</title><meta property="og:site_name" content="Acme">
<link rel="icon" href="/favicon.ico"><style>
:root { --brand-primary: #7c3aed; }
body { background: #fafafa; color: #18181b; font: 16px/1.6 Georgia, serif; }
h1 { font: 700 36px/1.2 Verdana, sans-serif; } a { color: #0369a1; }
.cta { background: #7c3aed; color: #fff; padding: 10px 20px; border-radius: 6px; border: 0; }
</style></head><body><header><a href="/"><img src="/logo.png" alt="Acme logo" width="100" height="30"></a></header>
<main><h1>Acme</h1><p>We make <a href="/things">things</a> for people who like things.</p>
<button class="cta">Start</button></main></body></html>`;

describe('page formats through the stack (Firecrawl JS and Python SDKs)', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: LocalServer;
  let dir: string;
  const version = { n: 1 };
  let wav: Buffer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-e2e-formats-'));
    const wavFile = path.join(dir, 'tone.wav');
    execFileSync('ffmpeg', [
      '-nostdin',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=1',
      wavFile,
    ]);
    wav = fs.readFileSync(wavFile);
    site = await listenLocal((req, res) => {
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (req.url === '/changing')
        return html(
          `<html><body><main><h1>News</h1><p>Edition ${version.n} of the news.</p></main></body></html>`,
        );
      if (req.url === '/branded') return html(BRANDED);
      if (req.url === '/podcast')
        return html(
          '<html><body><p>Episode 1</p><audio src="/tone.wav" controls></audio><a href="/a" data-k="v">A</a></body></html>',
        );
      if (req.url === '/tone.wav') return res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    e2e = await startSiteStack({
      name: 'formats',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      adminToken: ADMIN,
      sites: [site],
      env: { WDS_BROWSER_PROCESSES: '1' },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('JS SDK: changeTracking twice on a changing page, then branding, attributes and audio', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    const url = `${site.url}/changing`;
    const opts = {
      formats: [
        'markdown' as const,
        { type: 'changeTracking' as const, modes: ['git-diff' as const], tag: 'js' },
      ],
    };
    version.n = 1;
    const first = await client.scrape(url, opts);
    expect(first.changeTracking).toMatchObject({
      changeStatus: 'new',
      previousScrapeAt: null,
      visibility: 'visible',
    });
    version.n = 2;
    const second = await client.scrape(url, opts);
    expect(second.changeTracking).toMatchObject({ changeStatus: 'changed', visibility: 'visible' });
    expect(second.changeTracking!.previousScrapeAt).toEqual(expect.any(String));
    expect(second.changeTracking!.diff).toContain('-Edition 1 of the news.');
    expect(second.changeTracking!.diff).toContain('+Edition 2 of the news.');
    expect(second.markdown).toContain('Edition 2');

    const branded = await client.scrape(`${site.url}/branded`, { formats: ['branding'] });
    expect(branded.branding).toMatchObject({
      colorScheme: 'light',
      brandName: 'Acme',
      colors: { primary: '#7C3AED', background: '#FAFAFA', textPrimary: '#18181B', link: '#0369A1' },
      typography: { fontFamilies: { primary: 'Georgia', heading: 'Verdana' } },
      components: { buttonPrimary: { background: '#7C3AED', textColor: '#FFFFFF', borderRadius: '6px' } },
      images: { logo: `${site.url}/logo.png`, favicon: `${site.url}/favicon.ico`, ogImage: null },
    });

    const podcast = await client.scrape(`${site.url}/podcast`, {
      formats: ['audio', { type: 'attributes', selectors: [{ selector: 'a[data-k]', attribute: 'href' }] }],
    });
    expect((podcast as { attributes?: unknown }).attributes).toEqual([
      { selector: 'a[data-k]', attribute: 'href', values: ['/a'] },
    ]);
    expect(podcast.audio).toMatch(
      new RegExp(`^${stack.url}/v2/artifacts/[0-9a-f-]{36}\\?expires=\\d+&signature=`),
    );
    const mp3 = await fetch(podcast.audio!, { headers: { authorization: `Bearer ${KEY}` } });
    expect(mp3.status).toBe(200);
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await mp3.arrayBuffer());
    // An MP3 stream starts with an ID3 tag or an MPEG audio frame sync.
    expect(
      bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0),
    ).toBe(true);
    expect(podcast.metadata?.creditsUsed).toBe(5);

    const none = await client.scrape(`${site.url}/changing`, { formats: ['markdown', 'video'] });
    expect(none.video).toBeUndefined();
    expect(none.warning).toMatch(/No video was found on this page/);

    const batch = await client.batchScrape([`${site.url}/changing`, `${site.url}/podcast`], {
      options: { formats: [{ type: 'changeTracking', tag: 'batch' }] },
      pollInterval: 1,
    });
    expect(batch.status).toBe('completed');
    expect(batch.data.map((d) => (d.changeTracking as { changeStatus: string }).changeStatus)).toEqual([
      'new',
      'new',
    ]);

    const crawl = await client.crawl(`${site.url}/changing`, {
      limit: 1,
      scrapeOptions: { formats: [{ type: 'changeTracking', tag: 'crawl' }] },
      pollInterval: 1,
    });
    expect(crawl.status).toBe('completed');
    expect(crawl.data[0].changeTracking).toMatchObject({ changeStatus: 'new', visibility: 'visible' });
  }, 120_000);

  it('Python SDK: change_tracking twice on a changing page; branding validates as BrandingProfile', async () => {
    const sdk = await pythonSdk();
    version.n = 10;
    const first = await sdk.run(
      `
      doc = client().scrape(${JSON.stringify(`${site.url}/changing`)}, formats=["markdown", {"type": "changeTracking", "modes": ["git-diff"], "tag": "py"}])
      emit(doc.change_tracking)
      `,
      { apiUrl: stack.url, apiKey: KEY },
    );
    expect(first.result).toMatchObject({ changeStatus: 'new', previousScrapeAt: null });
    version.n = 11;
    const second = await sdk.run(
      `
      c = client()
      doc = c.scrape(${JSON.stringify(`${site.url}/changing`)}, formats=["markdown", {"type": "changeTracking", "modes": ["git-diff"], "tag": "py"}])
      brand = c.scrape(${JSON.stringify(`${site.url}/branded`)}, formats=["branding"])
      emit({"tracking": doc.change_tracking, "branding": brand.branding, "type": type(brand.branding).__name__})
      `,
      { apiUrl: stack.url, apiKey: KEY },
    );
    expect(second.result.tracking).toMatchObject({ changeStatus: 'changed' });
    expect(second.result.tracking.diff).toContain('+Edition 11 of the news.');
    expect(second.result.type).toBe('BrandingProfile');
    expect(second.result.branding).toMatchObject({ color_scheme: 'light', colors: { primary: '#7C3AED' } });
  }, 600_000);

  it('deletes a team’s change-tracking snapshots through the admin API; the next scrape is new again', async () => {
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    const created = await fetch(`${stack.url}/admin/v1/teams`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'change-tracking', credits: 100 }),
    });
    expect(created.status).toBe(201);
    const { teamId, apiKey } = (await created.json()) as { teamId: string; apiKey: string };
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey, apiUrl: stack.url });
    const url = `${site.url}/changing`;
    const opts = { formats: [{ type: 'changeTracking' as const, tag: 'del' }] };
    expect((await client.scrape(url, opts)).changeTracking).toMatchObject({ changeStatus: 'new' });
    expect((await client.scrape(url, opts)).changeTracking).toMatchObject({ changeStatus: 'same' });

    const route = `${stack.url}/admin/v1/teams/${encodeURIComponent(teamId)}/change-tracking`;
    expect((await fetch(`${route}?url=${encodeURIComponent(url)}`, { method: 'DELETE' })).status).toBe(401);
    const auth = { authorization: `Bearer ${ADMIN}` };
    const invalid = await fetch(`${route}?url=not-a-url`, { method: 'DELETE', headers: auth });
    expect(invalid.status).toBe(400);
    const deleted = await fetch(`${route}?url=${encodeURIComponent(url)}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ success: true, deleted: 1 });
    expect((await client.scrape(url, opts)).changeTracking).toMatchObject({ changeStatus: 'new' });
    // The bootstrap team's snapshots of the same URL were not touched.
    const other = new Firecrawl({ apiKey: KEY, apiUrl: stack.url });
    const tagged = await other.scrape(url, {
      formats: [{ type: 'changeTracking', modes: ['git-diff'], tag: 'js' }],
    });
    expect(tagged.changeTracking).toMatchObject({ changeStatus: expect.stringMatching(/^(same|changed)$/) });
  }, 120_000);
});
