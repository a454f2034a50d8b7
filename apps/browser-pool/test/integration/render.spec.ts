import { randomUUID } from 'node:crypto';
import { BROWSER_POOL_RPC, type BrowserRenderReply } from '@wds/contracts';
import { FIXTURE_TEXT, startFixtureSite, type FixtureSite } from '@wds/testing';
import { BrowserPool } from '../../src/pool/browser-pool';
import { imageSize, startBrowserPool, type PoolHarness } from '../support/pool-harness';
import { startConnectProxy } from '../support/connect-proxy';
import { startTestPages, type TestPages } from '../support/test-pages';

jest.setTimeout(30_000);

describe('browser-pool: render over NATS with one warm Chromium', () => {
  let site: FixtureSite;
  let pages: TestPages;
  let forbidden: TestPages;
  let pool: PoolHarness;

  beforeAll(async () => {
    site = await startFixtureSite();
    // A second server that is NOT allow-listed: pages may point at it, the policy must stop them.
    forbidden = await startTestPages();
    pages = await startTestPages(() => forbidden.url);
    pool = await startBrowserPool({
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${pages.port}`,
    });
  }, 60_000);
  afterAll(async () => {
    await pool?.stop();
    await Promise.all([site?.close(), pages?.close(), forbidden?.close()]);
  });

  const html = (r: BrowserRenderReply) => r.content!.html;

  it('renders a script-built page and reports status and final URL', async () => {
    const r = await pool.render({ url: `${site.url}/script-rendered` });
    expect(html(r)).toContain(FIXTURE_TEXT.scriptRendered);
    expect(r).toMatchObject({ status: 200, finalUrl: `${site.url}/script-rendered` });
    const redirected = await pool.render({ url: `${site.url}/redirect` });
    expect(redirected.finalUrl).toBe(`${site.url}/article`);
  });

  it('takes viewport and full-page screenshots of the requested size (PNG, JPEG with quality)', async () => {
    const r = await pool.render({
      url: `${pages.url}/tall`,
      screenshot: { viewport: { width: 800, height: 600 } },
    });
    expect(r.screenshot).toMatchObject({ contentType: 'image/png', id: expect.any(String) });
    expect(imageSize(await pool.artifact(r.screenshot!))).toEqual({ type: 'png', width: 800, height: 600 });

    const full = await pool.render({
      url: `${pages.url}/tall`,
      screenshot: { fullPage: true, quality: 60, viewport: { width: 640, height: 480 } },
    });
    expect(imageSize(await pool.artifact(full.screenshot!))).toEqual({
      type: 'jpeg',
      width: 640,
      height: 3000,
    });
  });

  it('runs every action kind and returns their results', async () => {
    const r = await pool.render({
      url: `${pages.url}/actions`,
      actions: [
        { type: 'wait', milliseconds: 50 },
        { type: 'wait', selector: '.late' },
        { type: 'click', selector: '#go' },
        { type: 'click', selector: '.many', all: true },
        { type: 'click', selector: '#name' },
        { type: 'write', text: 'Ada' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll', direction: 'down' },
        { type: 'scrape' },
        { type: 'executeJavascript', script: 'window.many' },
        {
          type: 'executeJavascript',
          script: 'const y = window.scrollY; return { y, title: document.title };',
        },
        { type: 'screenshot', viewport: { width: 500, height: 400 } },
        { type: 'pdf', format: 'A4', landscape: true },
      ],
    });
    const scraped = r.content!.scrapes[0];
    expect(scraped.url).toBe(`${pages.url}/actions`);
    expect(scraped.html).toContain('clicked 1');
    expect(scraped.html).toContain('entered Ada');
    expect(scraped.html).toContain('late content');
    expect(r.actions.javascriptReturns[0]).toEqual({ type: 'number', value: 2 });
    expect(r.actions.javascriptReturns[1]).toEqual({
      type: 'object',
      value: { y: expect.any(Number), title: 'Actions' },
    });
    expect((r.actions.javascriptReturns[1].value as { y: number }).y).toBeGreaterThan(0);
    expect(imageSize(await pool.artifact(r.actions.screenshots[0]))).toMatchObject({
      width: 500,
      height: 400,
    });
    const pdf = await pool.artifact(r.actions.pdfs[0]);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('names the failing action by index', async () => {
    await expect(
      pool.render({
        url: `${pages.url}/actions`,
        timeoutMs: 5000,
        actions: [
          { type: 'wait', milliseconds: 10 },
          { type: 'executeJavascript', script: 'throw new Error("boom")' },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^Action 1 \(executeJavascript\) failed: .*boom/),
    });
    await expect(
      pool.render({
        url: `${pages.url}/actions`,
        actions: [{ type: 'wait', milliseconds: 60_000 }],
        waitFor: 1000,
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('60000 ms') });
  });

  it('emulates a mobile device, locale and time zone visibly to page scripts', async () => {
    const probe = async (r: BrowserRenderReply) =>
      JSON.parse(/<pre id="probe">([^<]*)<\/pre>/.exec(html(r))![1].replace(/&quot;/g, '"')) as Record<
        string,
        unknown
      >;
    const mobile = await probe(
      await pool.render({
        url: `${pages.url}/probe`,
        mobile: true,
        location: { country: 'DE', languages: ['de-DE'] },
      }),
    );
    expect(mobile).toMatchObject({ language: 'de-DE', tz: 'Europe/Berlin', width: 412 });
    expect(mobile.ua).toMatch(/Mobile/);
    expect(mobile.touch).toBeGreaterThan(0);
    const desktop = await probe(
      await pool.render({ url: `${pages.url}/probe`, location: { country: 'JP' } }),
    );
    expect(desktop).toMatchObject({ language: 'ja-JP', tz: 'Asia/Tokyo', width: 1920, touch: 0 });
    expect(desktop.ua).not.toMatch(/Headless|Mobile/);
  });

  it('blocks ads and trackers and removes cookie notices unless blockAds is false', async () => {
    const blocked = await pool.render({ url: `${pages.url}/ads` });
    expect(blocked.blockedRequests.ads).toBe(3);
    expect(html(blocked)).not.toContain('We use cookies');
    const open = await pool.render({ url: `${pages.url}/ads`, blockAds: false });
    expect(open.blockedRequests.ads).toBe(0);
    expect(html(open)).toContain('We use cookies');
  });

  it('answers a consent dialog (reject all) with blockAds, and leaves it alone without', async () => {
    const cookie = [{ type: 'executeJavascript' as const, script: 'document.cookie' }];
    const answered = await pool.render({ url: `${pages.url}/consent`, actions: cookie });
    // The CMP's own "Reject all" button was clicked (a hidden dialog would leave no cookie).
    expect(answered.actions.javascriptReturns[0].value).toBe('consent=rejected');
    expect(html(answered)).not.toContain('812 partners');
    expect(html(answered)).toContain('Article behind a consent dialog');
    const untouched = await pool.render({ url: `${pages.url}/consent`, blockAds: false, actions: cookie });
    expect(untouched.actions.javascriptReturns[0].value).toBe('');
    expect(html(untouched)).toContain('812 partners');
  });

  it('applies the network policy to subresources, frames, fetches, websockets and redirects', async () => {
    const r = await pool.render({ url: `${pages.url}/private-subresources`, waitFor: 200 });
    expect(forbidden.hits('/pixel.png') + forbidden.hits('/script.js') + forbidden.hits('/api')).toBe(0);
    expect(forbidden.hits('/socket')).toBe(0);
    // image, script, iframe and fetch; the websocket is refused by the policy proxy (not counted per job).
    expect(r.blockedRequests.policy).toBeGreaterThanOrEqual(4);
    expect(html(r)).toContain('data-fetch="refused"');
    expect(html(r)).toContain('data-ws="refused"');
    await expect(pool.render({ url: `${site.url}/redirect-private` })).rejects.toMatchObject({
      code: 'DESTINATION_BLOCKED',
    });
    // An HTTPS hop is a CONNECT the policy proxy refuses: still the policy's code, not a network failure.
    await expect(pool.render({ url: `${pages.url}/redirect-https-private` })).rejects.toMatchObject({
      code: 'DESTINATION_BLOCKED',
      details: { host: '10.255.255.1' },
    });
    await expect(pool.render({ url: `${forbidden.url}/profile` })).rejects.toMatchObject({
      code: 'DESTINATION_BLOCKED',
    });
  });

  it('sends the page through an upstream proxy after the network policy', async () => {
    const upstream = await startConnectProxy();
    try {
      const r = await pool.render({ url: `${pages.url}/private-subresources`, upstreamProxy: upstream.url });
      expect(html(r)).toContain('<p>Page</p>');
      expect(upstream.targets).toContain(`127.0.0.1:${pages.port}`);
      // Refused destinations never reach the upstream proxy.
      expect(upstream.targets).not.toContain(`127.0.0.1:${forbidden.port}`);
      expect(forbidden.hits('/pixel.png') + forbidden.hits('/api') + forbidden.hits('/socket')).toBe(0);
      const wrong = `${upstream.url.replace('u:p@', 'u:wrong@')}`;
      await expect(pool.render({ url: `${pages.url}/profile`, upstreamProxy: wrong })).rejects.toMatchObject({
        code: 'UPSTREAM_FAILED',
        message: expect.stringContaining('407'),
      });
    } finally {
      await upstream.close();
    }
  });

  it('keeps cookies and localStorage in a named profile between scrapes', async () => {
    const profile = { name: `p-${randomUUID()}`, saveChanges: true };
    await pool.render({
      url: `${pages.url}/profile`,
      profile,
      actions: [
        {
          type: 'executeJavascript',
          script: "localStorage.setItem('k', 'v1'); document.cookie = 'c=1; max-age=3600'",
        },
      ],
    });
    const again = await pool.render({
      url: `${pages.url}/profile`,
      profile: { name: profile.name, saveChanges: false },
      actions: [{ type: 'executeJavascript', script: "localStorage.getItem('k') + '|' + document.cookie" }],
    });
    expect(again.actions.javascriptReturns[0].value).toBe('v1|c=1');
    const otherTeam = await pool.render({
      teamId: 'team-b',
      url: `${pages.url}/profile`,
      profile: { name: profile.name, saveChanges: false },
      actions: [{ type: 'executeJavascript', script: "String(localStorage.getItem('k'))" }],
    });
    expect(otherTeam.actions.javascriptReturns[0].value).toBe('null');
  });

  it('keeps a replay context for the owning team', async () => {
    const jobId = randomUUID();
    await pool.render({ jobId, url: `${pages.url}/profile`, actions: [{ type: 'scrape' }], mobile: true });
    const { context } = await pool.client.request(BROWSER_POOL_RPC.replayContext, {
      teamId: 'team-a',
      jobId,
    });
    expect(context).toMatchObject({
      url: `${pages.url}/profile`,
      actions: [{ type: 'scrape' }],
      options: { mobile: true },
    });
    expect(Date.parse(context.expiresAt)).toBeGreaterThan(Date.now());
    await expect(
      pool.client.request(BROWSER_POOL_RPC.replayContext, { teamId: 'team-b', jobId }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('replaces a killed browser without failing the work that was running or waiting', async () => {
    const pool$ = pool.service.app.get(BrowserPool, { strict: false }) as BrowserPool<unknown>;
    const [pid] = pool$.browserPids();
    expect(pid).toEqual(expect.any(Number));
    const jobs = [0, 1, 2].map(() => pool.render({ url: `${site.url}/slow?ms=800` }));
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGKILL');
    const late = pool.render({ url: `${site.url}/script-rendered` });
    const results = await Promise.all([...jobs, late]);
    expect(results.slice(0, 3).every((r) => r.content!.html.includes(FIXTURE_TEXT.slowText))).toBe(true);
    expect(results[3].content!.html).toContain(FIXTURE_TEXT.scriptRendered);
    expect(pool$.stats()).toMatchObject({ crashes: 1, browsers: 1 });
    expect(pool$.browserPids()).not.toContain(pid);
  });
});
