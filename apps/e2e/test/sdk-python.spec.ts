import { randomBytes } from 'node:crypto';
import { freePort } from '@wds/local-infra';
import {
  FIXTURE_TEXT,
  startFixtureSite,
  startGeneratedSite,
  type FixtureSite,
  type GeneratedSite,
} from '@wds/testing';
import { callApi } from './support/http';
import { pythonSdk, type PythonSdk } from './support/python-sdk';
import { startE2eStack, type E2eStack, type StackProcess } from './support/stack-process';

// The official Python SDK (firecrawl-py from PyPI, pinned in support/python-sdk.ts) against the
// whole stack as `npm start` runs it: scrape (formats, actions, screenshot), crawl (waiting, and
// start/status/cancel), batch scrape (waiting, start/status, cancel), map and the team usage
// methods, each checked on what it returns.

const READY_TIMEOUT_MS = 300_000;
const KEY = `e2e-py-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

describe('the official Python SDK (firecrawl-py) against the stack', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: FixtureSite;
  let slow: GeneratedSite;
  let sdk: PythonSdk;

  /** Runs a snippet (URL: the fixture site, SLOW: a slow 200-page site) and returns what it emitted. */
  const py = async (code: string, timeoutMs = 180_000, apiKey = KEY): Promise<any> =>
    (
      await sdk.run(code, {
        apiUrl: stack.url,
        apiKey,
        timeoutMs,
        env: { URL: site.url, SLOW: slow.url },
      })
    ).result;

  beforeAll(async () => {
    // The venv first (PyPI, once per machine) while nothing else runs.
    sdk = await pythonSdk();
    site = await startFixtureSite();
    slow = await startGeneratedSite({ pages: 200, delayMs: 300 });
    const port = await freePort();
    e2e = await startE2eStack({
      name: 'python-sdk',
      port,
      readyTimeoutMs: READY_TIMEOUT_MS,
      env: {
        WDS_BOOTSTRAP_API_KEY: KEY,
        // Start-up (docs-search indexes the docs) can take minutes on a loaded machine.
        WDS_START_TIMEOUT_MS: String(READY_TIMEOUT_MS),
        WDS_ADMIN_TOKEN: ADMIN_TOKEN,
        WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port},127.0.0.1:${slow.port}`,
        WDS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WDS_BROWSER_PROCESSES: '1',
      },
    });
    stack = e2e.stack;
  }, 600_000 + READY_TIMEOUT_MS);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
    await slow?.close();
  }, 30_000);

  it('scrape: markdown, html, links and metadata of a page', async () => {
    const doc = await py(`
      import os
      emit(client().scrape(os.environ["URL"] + "/article", formats=["markdown", "html", "links"], only_main_content=True))
    `);
    expect(doc.markdown).toContain(FIXTURE_TEXT.articleLead);
    expect(doc.markdown).not.toContain(FIXTURE_TEXT.footerText);
    expect(doc.html).toContain('<');
    expect(Array.isArray(doc.links)).toBe(true);
    expect(doc.metadata).toMatchObject({ status_code: 200, source_url: `${site.url}/article` });
  }, 180_000);

  it('scrape: a script-rendered page with actions and a screenshot', async () => {
    const doc = await py(`
      import os
      emit(client().scrape(
          os.environ["URL"] + "/script-rendered",
          formats=["markdown", {"type": "screenshot", "viewport": {"width": 800, "height": 600}}],
          actions=[
              {"type": "wait", "milliseconds": 100},
              {"type": "executeJavascript", "script": "document.title"},
              {"type": "scrape"},
              {"type": "screenshot"},
          ],
      ))
    `);
    expect(doc.markdown).toContain(FIXTURE_TEXT.scriptRendered);
    expect(doc.screenshot).toMatch(new RegExp(`^${stack.url}/v2/artifacts/`));
    // `actions` is a plain dict in the SDK's Document: its keys are the API's.
    expect(doc.actions.javascriptReturns).toEqual([{ type: 'string', value: expect.any(String) }]);
    expect(doc.actions.scrapes).toHaveLength(1);
    expect(doc.actions.screenshots).toHaveLength(1);
    // The artifact the SDK was handed is a real PNG.
    const png = await fetch(doc.screenshot, { headers: { authorization: `Bearer ${KEY}` } });
    expect(png.status).toBe(200);
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
  }, 180_000);

  it('crawl: waits for a crawl and returns every page', async () => {
    const job = await py(`
      import os
      emit(client().crawl(os.environ["URL"] + "/docs", limit=3, sitemap="skip", poll_interval=1, timeout=150))
    `);
    expect(job).toMatchObject({ status: 'completed', total: 3, completed: 3 });
    expect(job.data).toHaveLength(3);
    for (const d of job.data) expect(d.metadata.source_url.startsWith(`${site.url}/docs`)).toBe(true);
  }, 180_000);

  it('crawl: start, then status until it is done', async () => {
    const out = await py(`
      import os, time
      c = client()
      started = c.start_crawl(os.environ["URL"] + "/docs", limit=3, sitemap="skip")
      first = c.get_crawl_status(started.id)
      for _ in range(600):
          status = c.get_crawl_status(started.id)
          if status.status != "scraping":
              break
          time.sleep(0.25)
      emit({"id": started.id, "url": started.url, "first": first.status, "last": status})
    `);
    expect(out.url).toMatch(new RegExp(`/v2/crawl/${out.id}$`));
    expect(['scraping', 'completed']).toContain(out.first);
    expect(out.last).toMatchObject({ status: 'completed', total: 3, completed: 3 });
    expect(out.last.data).toHaveLength(3);
  }, 180_000);

  it('batch scrape: waits for a batch; start and status of another', async () => {
    const out = await py(`
      import os, time
      c = client()
      base = os.environ["URL"]
      done = c.batch_scrape([base + "/article", base + "/meta"], formats=["markdown"], poll_interval=1, wait_timeout=150)
      started = c.start_batch_scrape([base + "/docs", base + "/docs/a"], formats=["links"])
      for _ in range(600):
          status = c.get_batch_scrape_status(started.id)
          if status.status != "scraping":
              break
          time.sleep(0.25)
      emit({"done": done, "status": status})
    `);
    expect(out.done).toMatchObject({ status: 'completed', total: 2, completed: 2 });
    expect(out.done.data.map((d: any) => d.metadata.source_url).sort()).toEqual([
      `${site.url}/article`,
      `${site.url}/meta`,
    ]);
    expect(out.status).toMatchObject({ status: 'completed', total: 2, completed: 2 });
    for (const d of out.status.data) expect(Array.isArray(d.links)).toBe(true);
  }, 180_000);

  it('map: the links of a site', async () => {
    const out = await py(`
      import os
      emit(client().map(os.environ["URL"], limit=50, sitemap="include"))
    `);
    const urls = (out.links as Array<{ url: string }>).map((l) => l.url);
    expect(urls).toEqual(expect.arrayContaining([`${site.url}/article`, `${site.url}/docs`]));
  }, 180_000);

  it('usage: credits, tokens, concurrency and queue of a team', async () => {
    const created = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: `py-usage-${randomBytes(3).toString('hex')}`, credits: 1000 },
    });
    expect(created.status).toBe(201);
    const out = await py(
      `
      import os, time
      c = client()
      c.scrape(os.environ["URL"] + "/article", formats=["markdown"])
      c.scrape(os.environ["URL"] + "/meta", formats=["markdown"])
      # Usage reaches billing in batches: wait for it (at most 30 s).
      for _ in range(150):
          if c.get_credit_usage().remaining_credits <= 998:
              break
          time.sleep(0.2)
      emit({
          "credit": c.get_credit_usage(),
          "token": c.get_token_usage(),
          "concurrency": c.get_concurrency(),
          "queue": c.get_queue_status(),
      })
      `,
      180_000,
      created.body.apiKey,
    );
    expect(out.credit).toMatchObject({ remaining_credits: 998, plan_credits: 1000 });
    expect(out.token).toMatchObject({ remaining_tokens: 998 * 15 });
    // The SDK's own previous call may still hold its slot for a moment.
    expect(out.concurrency.max_concurrency).toBeGreaterThan(0);
    expect(out.concurrency.concurrency).toBeLessThanOrEqual(1);
    expect(out.queue).toMatchObject({ jobs_in_queue: 0 });
  }, 180_000);

  it('search: fails with the reason (no search engine configured in this stack)', async () => {
    const out = await py(`
      try:
          client().search("kettles", limit=3)
          emit({"raised": None})
      except Exception as e:
          emit({"raised": type(e).__name__, "message": str(e)})
    `);
    expect(out.raised).toEqual(expect.any(String));
    expect(out.message).toMatch(/Web search is not configured/);
  }, 60_000);

  it('crawl: cancel a running crawl', async () => {
    const out = await py(`
      import os, time
      c = client()
      # delay (seconds between pages) keeps it running for minutes.
      started = c.start_crawl(os.environ["SLOW"], limit=200, sitemap="skip", delay=1)
      time.sleep(1.5)
      running = c.get_crawl_status(started.id)
      cancelled = c.cancel_crawl(started.id)
      after = c.get_crawl_status(started.id)
      emit({"running": running.status, "cancelled": cancelled, "after": after.status, "completed": after.completed})
    `);
    expect(out).toMatchObject({ running: 'scraping', cancelled: true, after: 'cancelled' });
    expect(out.completed).toBeLessThan(200);
  }, 180_000);

  it('batch scrape: cancel a running batch', async () => {
    const out = await py(`
      import os
      c = client()
      slow = os.environ["SLOW"]
      started = c.start_batch_scrape([slow + "/p/%d" % i for i in range(1, 120)], formats=["markdown"], max_concurrency=1)
      cancelled = c.cancel_batch_scrape(started.id)
      after = c.get_batch_scrape_status(started.id)
      emit({"cancelled": cancelled, "after": after.status, "completed": after.completed})
    `);
    expect(out).toMatchObject({ cancelled: true, after: 'cancelled' });
    expect(out.completed).toBeLessThan(119);
  }, 180_000);
});
