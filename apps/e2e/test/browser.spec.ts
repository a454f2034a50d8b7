import { randomBytes } from 'node:crypto';
import { FIXTURE_TEXT, startFixtureSite, type FixtureSite } from '@wds/testing';
import { startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// Browser rendering through the whole stack (gateway → scraper → browser-pool → Chromium), driven by
// the official Firecrawl JS SDK, as `npm start` runs it.

const READY_TIMEOUT_MS = 90_000;
const BOOTSTRAP_KEY = `e2e-browser-${randomBytes(16).toString('hex')}`;

/** Width and height from a PNG header. */
function pngSize(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('browser scrapes through the stack (Firecrawl JS SDK)', () => {
  let e2e: E2eStack | undefined;
  let site: FixtureSite;
  let stack: StackProcess;

  beforeAll(async () => {
    site = await startFixtureSite();
    e2e = await startSiteStack({
      name: 'browser',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: BOOTSTRAP_KEY,
      sites: [site],
      env: { WDS_BROWSER_PROCESSES: '1' },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
  }, 30_000);

  it('scrapes a script-rendered page with a screenshot and actions', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: BOOTSTRAP_KEY, apiUrl: stack.url });
    const doc = await client.scrape(`${site.url}/script-rendered`, {
      formats: ['markdown', { type: 'screenshot', viewport: { width: 800, height: 600 } }],
      actions: [
        { type: 'wait', milliseconds: 100 },
        { type: 'executeJavascript', script: 'document.title' },
        { type: 'scrape' },
        { type: 'screenshot' },
      ],
    });
    expect(doc.markdown).toContain(FIXTURE_TEXT.scriptRendered);
    expect(doc.metadata?.statusCode).toBe(200);
    // A capability URL (npm start configures the signing key): it works without the API key.
    expect(doc.screenshot).toMatch(
      new RegExp(`^${stack.url}/v2/artifacts/[0-9a-f-]{36}\\?expires=\\d+&signature=[\\w-]+$`),
    );
    const actions = doc.actions as {
      javascriptReturns: { type: string; value: unknown }[];
      scrapes: { url: string; html: string }[];
      screenshots: string[];
    };
    expect(actions.javascriptReturns[0]).toEqual({ type: 'string', value: expect.any(String) });
    expect(actions.scrapes[0].html).toContain(FIXTURE_TEXT.scriptRendered);
    expect(actions.screenshots).toHaveLength(1);

    const image = await fetch(doc.screenshot!, { headers: { authorization: `Bearer ${BOOTSTRAP_KEY}` } });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(pngSize(Buffer.from(await image.arrayBuffer()))).toEqual({ width: 800, height: 600 });
    const anonymous = await fetch(doc.screenshot!);
    expect(anonymous.status).toBe(200);
    expect(pngSize(Buffer.from(await anonymous.arrayBuffer()))).toEqual({ width: 800, height: 600 });
    // Without its signature the same artifact needs the API key.
    expect((await fetch(doc.screenshot!.split('?')[0])).status).toBe(401);
    const forged = doc.screenshot!.replace(/signature=[\w-]+/, 'signature=AAAA');
    expect((await fetch(forged)).status).toBe(403);
  }, 60_000);
});
