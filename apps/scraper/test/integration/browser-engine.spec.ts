import { randomUUID } from 'node:crypto';
import { BROWSER_POOL_RPC, ServiceError, type BrowserRenderRequest } from '@wds/contracts';
import { FIXTURE_TEXT, startFixtureSite, type FixtureSite } from '@wds/testing';
import { startScraper, type ScraperHarness } from '../support/scraper-harness';

/**
 * The scraper's side of browser rendering, against a stand-in for the browser-pool service that
 * answers the render contract (the real service is covered by apps/browser-pool and the e2e suite).
 */
describe('scraper: engine selection with the browser engine', () => {
  let site: FixtureSite;
  let scraper: ScraperHarness;
  const team = () => `team-${randomUUID()}`;
  const renders: BrowserRenderRequest[] = [];
  let mode: 'render' | 'full' = 'render';

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = await startScraper({
      WDS_PRIVATE_NETWORK_ALLOWLIST: '127.0.0.1',
      WDS_PUBLIC_BASE_URL: 'https://api.example.test/',
    });
    scraper.client.serve(BROWSER_POOL_RPC.render, async (req) => {
      renders.push(req);
      if (mode === 'full') throw new ServiceError('CONCURRENCY_LIMITED', 'busy', undefined, 3);
      const id = randomUUID();
      return {
        status: 200,
        finalUrl: req.url,
        contentType: 'text/html',
        content: {
          html: `<html><head><title>Rendered</title></head><body><main><h1>Rendered</h1><p>${FIXTURE_TEXT.scriptRendered}.</p></main></body></html>`,
          scrapes: req.actions.some((a) => a.type === 'scrape')
            ? [{ url: req.url, html: '<p>moment</p>' }]
            : [],
        },
        screenshot: req.screenshot ? { id, contentType: 'image/png', bytes: 10 } : undefined,
        actions: {
          screenshots: [],
          javascriptReturns: req.actions.some((a) => a.type === 'executeJavascript')
            ? [{ type: 'number', value: 2 }]
            : [],
          pdfs: [],
        },
        blockedRequests: { policy: 0, ads: 0 },
        ms: 12,
      };
    });
  });
  afterAll(async () => {
    await scraper?.stop();
    await site?.close();
  });
  beforeEach(() => {
    renders.length = 0;
    mode = 'render';
  });

  it('renders a script-rendered shell in the browser after the fetch engine', async () => {
    const reply = await scraper.scrape(team(), { url: `${site.url}/script-rendered`, maxAge: 0 });
    expect(reply.document.markdown).toContain(FIXTURE_TEXT.scriptRendered);
    expect(renders).toHaveLength(1);
    expect(renders[0]).toMatchObject({ url: `${site.url}/script-rendered`, blockAds: true, actions: [] });
  });

  it('does not call the browser for a server-rendered page', async () => {
    await scraper.scrape(team(), { url: `${site.url}/article`, maxAge: 0 });
    expect(renders).toHaveLength(0);
  });

  it('returns the screenshot as a gateway artifact URL and the action results', async () => {
    const reply = await scraper.scrape(team(), {
      url: `${site.url}/article`,
      formats: ['markdown', { type: 'screenshot', fullPage: true }],
      actions: [{ type: 'executeJavascript', script: '1+1' }, { type: 'scrape' }],
    });
    expect(reply.document.screenshot).toMatch(/^https:\/\/api\.example\.test\/v2\/artifacts\/[0-9a-f-]{36}$/);
    expect(reply.document.actions).toEqual({
      screenshots: [],
      scrapes: [{ url: `${site.url}/article`, html: '<p>moment</p>' }],
      javascriptReturns: [{ type: 'number', value: 2 }],
      pdfs: [],
    });
    expect(reply.document.markdown).toContain(FIXTURE_TEXT.scriptRendered);
    expect(renders[0].screenshot).toEqual({ fullPage: true });
  });

  it('tries other replicas when one is full, then answers CONCURRENCY_LIMITED with Retry-After', async () => {
    mode = 'full';
    await expect(
      scraper.scrape(team(), { url: `${site.url}/article`, formats: ['screenshot'] }),
    ).rejects.toMatchObject({ code: 'CONCURRENCY_LIMITED', retryAfterSeconds: 3 });
    expect(renders).toHaveLength(3);
  });
});
