import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { callApi, listenLocal, type LocalServer } from './support/http';
import { pythonSdk } from './support/python-sdk';
import { startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// Browser sessions and interact through the whole stack (`npm start`: gateway → browser-pool over
// NATS, the credits ledger, sandboxed runtimes), driven by the official Firecrawl JS SDK and by
// playwright-core over the session's cdpUrl.

const READY_TIMEOUT_MS = 90_000;
const KEY = `e2e-browser-sessions-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;

/**
 * `/slow/*` answers only once released: a request the test keeps in flight. `arrived()` resolves
 * when the next such request has reached the site.
 */
const slow = {
  held: [] as (() => void)[],
  waiting: [] as (() => void)[],
  arrived(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  },
  release(): void {
    for (const answer of this.held.splice(0)) answer();
  },
};

/** A page with a counter the scrape's actions click, so a replay is visible in the page state. */
function startCounterSite(): Promise<LocalServer> {
  return listenLocal((req, res) => {
    if (req.url?.startsWith('/slow/')) {
      slow.held.push(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>slow</title><p>finally</p>');
      });
      for (const w of slow.waiting.splice(0)) w();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><title>Counter ${new URL(req.url ?? '/', 'http://x').pathname}</title></head>
      <body><button id="inc" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">+1</button>
      <span id="n">0</span><input id="q"></body></html>`);
  });
}

describe('browser sessions and interact through the stack', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: LocalServer;

  const sdk = async (apiKey = KEY) => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    return new Firecrawl({ apiKey, apiUrl: stack.url });
  };
  const call = (method: string, route: string, body?: unknown, key = KEY) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 120_000 });
  const adminTeam = async (credits: number, limits?: Record<string, number>) => {
    const created = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: `e2e-${randomBytes(4).toString('hex')}`, credits, ...(limits ? { limits } : {}) },
    });
    expect(created.status).toBe(201);
    return created.body as { teamId: string; apiKey: string };
  };
  /** The team's balance (an admin grant of 1 answers it; the probes' credits are subtracted). */
  const probes = new Map<string, number>();
  const balance = async (teamId: string) => {
    probes.set(teamId, (probes.get(teamId) ?? 0) + 1);
    const r = await callApi(stack.url, 'POST', `/admin/v1/teams/${teamId}/credits`, {
      key: ADMIN_TOKEN,
      body: { amount: 1, reason: 'e2e balance probe' },
    });
    expect(r.status).toBe(200);
    return (r.body.balance as number) - probes.get(teamId)!;
  };

  beforeAll(async () => {
    site = await startCounterSite();
    e2e = await startSiteStack({
      name: 'browser-sessions',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      adminToken: ADMIN_TOKEN,
      sites: [site],
      env: { WDS_BROWSER_PROCESSES: '1' },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    slow.release();
    await e2e?.stop();
    await site?.close();
  }, 60_000);

  it('creates, drives (node), lists and deletes a session with the JS SDK, billed once', async () => {
    const team = await adminTeam(1000);
    const client = await sdk(team.apiKey);
    const created = await client.browser({ ttl: 120, activityTtl: 60 });
    expect(created).toMatchObject({
      success: true,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cdpUrl: expect.stringMatching(new RegExp(`^ws://127\\.0\\.0\\.1:${e2e!.port}/v2/browser/`)),
      liveViewUrl: expect.stringMatching(/\/live\/[\w-]{43}$/),
      interactiveLiveViewUrl: expect.stringMatching(/\/live\/[\w-]{43}$/),
      expiresAt: expect.any(String),
    });
    // The whole ttl (2 minutes = 4 credits) is held while the session runs.
    expect(await balance(team.teamId)).toBe(996);
    const id = created.id!;

    const nav = await client.browserExecute(id, {
      code: `await page.goto('${site.url}/first'); console.log('went'); await page.title()`,
      language: 'node',
    });
    expect({ ...nav, stderr: nav.stderr?.slice(0, 2000) }).toMatchObject({
      success: true,
      result: 'Counter /first',
      exitCode: 0,
      killed: false,
    });
    expect(nav.stdout).toBe('went\n');

    // REPL state across calls: declarations, functions and the page.
    await client.browserExecute(id, {
      code: 'const base = 40; function add(n) { return base + n }',
      language: 'node',
    });
    const again = await client.browserExecute(id, {
      code: "await page.click('#inc'); add(2) + Number(await page.textContent('#n'))",
      language: 'node',
    });
    expect(again.result).toBe('43');

    const failing = await client.browserExecute(id, { code: "throw new Error('boom')", language: 'node' });
    expect(failing).toMatchObject({ success: true, exitCode: 1, killed: false, error: 'boom' });
    expect(failing.stderr).toContain('Error: boom');

    const active = await client.listBrowsers({ status: 'active' });
    expect(active.sessions?.map((s) => s.id)).toEqual([id]);
    expect(active.sessions?.[0]).toMatchObject({
      status: 'active',
      streamWebView: true,
      liveViewUrl: created.liveViewUrl,
    });

    const deleted = await client.deleteBrowser(id);
    expect(deleted).toMatchObject({ success: true, status: 'stopped', creditsBilled: 2 });
    expect(deleted.sessionDurationMs).toBeGreaterThan(0);
    expect(deleted.sessionDurationMs).toBeLessThan(60_000);
    // Settled at one minute (2 credits); the rest of the hold came back.
    expect(await balance(team.teamId)).toBe(998);

    const again2 = await call('DELETE', `/v2/browser/${id}`, undefined, team.apiKey);
    expect(again2).toMatchObject({ status: 200, body: { success: true, creditsBilled: 2 } });
    expect(await balance(team.teamId)).toBe(998);

    const destroyed = await client.listBrowsers({ status: 'destroyed' });
    expect(destroyed.sessions?.map((s) => s.id)).toEqual([id]);
    expect(destroyed.sessions?.[0]).toMatchObject({ status: 'destroyed', cdpUrl: '' });
    const after = await call('POST', `/v2/browser/${id}/execute`, { code: '1' }, team.apiKey);
    expect(after.status).toBe(410);
    // The same routes under the newer name.
    const alias = await call('GET', '/v2/interact?status=destroyed', undefined, team.apiKey);
    expect(alias.body.sessions.map((s: { id: string }) => s.id)).toEqual([id]);
    // The session is on the team's activity record (billing records it from the activity stream).
    let activity: { id: string; endpoint: string }[] = [];
    for (let i = 0; i < 50 && activity.length === 0; i++) {
      if (i) await new Promise((r) => setTimeout(r, 200));
      activity =
        (await call('GET', '/v2/team/activity?endpoint=browser', undefined, team.apiKey)).body.data ?? [];
    }
    expect(activity).toEqual([expect.objectContaining({ id, endpoint: 'browser' })]);
  }, 120_000);

  it('runs python (Playwright for Python) and bash (agent-browser) against the same browser, keeping state', async () => {
    const client = await sdk();
    const { id } = await client.browser({ ttl: 120 });
    const py = await client.browserExecute(id!, {
      code: `page.goto("${site.url}/python")\nprint("hello from python")\ncount = 5\npage.title()`,
      language: 'python',
    });
    expect(py).toMatchObject({ success: true, result: 'Counter /python', exitCode: 0 });
    expect(py.stdout).toBe('hello from python\n');
    expect((await client.browserExecute(id!, { code: 'count * 2', language: 'python' })).result).toBe('10');
    const pyFail = await client.browserExecute(id!, { code: 'raise ValueError("bad")', language: 'python' });
    expect(pyFail).toMatchObject({ exitCode: 1, error: 'ValueError: bad' });
    expect(pyFail.stderr).toContain('ValueError: bad');

    // The SDK's default language is bash; agent-browser is already pointed at the session's browser.
    const snap = await client.browserExecute(id!, { code: 'agent-browser snapshot -i' });
    expect(snap).toMatchObject({ success: true, exitCode: 0 });
    expect(snap.stdout).toMatch(/button "\+1" \[ref=(e\d+)\]/);
    const ref = /button "\+1" \[ref=(e\d+)\]/.exec(snap.stdout ?? '')![1];
    await client.browserExecute(id!, { code: `agent-browser click @${ref}` });
    const url = await client.browserExecute(id!, { code: 'agent-browser get url' });
    expect(url.stdout?.trim()).toBe(`${site.url}/python`);
    const clicked = await client.browserExecute(id!, {
      code: "await page.textContent('#n')",
      language: 'node',
    });
    expect(clicked.result).toBe('1');
    await client.browserExecute(id!, { code: 'GREETING=hi; cd /tmp' });
    const shell = await client.browserExecute(id!, { code: 'echo "$GREETING from $(pwd)"; false' });
    expect(shell).toMatchObject({
      stdout: 'hi from /tmp\n',
      result: 'hi from /tmp\n',
      exitCode: 1,
      success: true,
    });
    await client.deleteBrowser(id!);
  }, 120_000);

  it('works with the official Python SDK (firecrawl-py, validated with pydantic)', async () => {
    const py = await pythonSdk();
    const scraped = await (
      await sdk()
    ).scrape(`${site.url}/py-sdk`, {
      formats: ['markdown'],
      actions: [{ type: 'click', selector: '#inc' }],
    });
    const { result } = await py.run(
      `
      from firecrawl.v2.utils.error_handler import FirecrawlError
      c = client()
      created = c.browser(ttl=60, activity_ttl=30, block_ads=True, location={"country": "GB"})
      ran = c.browser_execute(created.id, "print(page.url)\\npage.title()", language="python")
      shell = c.browser_execute(created.id, "echo hi")
      active = c.list_browsers(status="active")
      deleted = c.delete_browser(created.id)
      destroyed = c.list_browsers(status="destroyed")
      first = c.interact("${scraped.metadata!.scrapeId}", "await page.textContent('#n')")
      try:
          c.interact("${scraped.metadata!.scrapeId}", "throw new Error('from node')")
          failure = None
      except FirecrawlError as e:
          failure = str(e)
      stopped = c.stop_interaction("${scraped.metadata!.scrapeId}")
      emit({"created": created, "ran": ran, "shell": shell, "active": [s.id for s in active.sessions],
            "deleted": deleted, "destroyed": [s.status for s in destroyed.sessions if s.id == created.id],
            "first": first, "failure": failure, "stopped": stopped})
      `,
      { apiUrl: stack.url, apiKey: KEY, timeoutMs: 120_000 },
    );
    expect(result.created).toMatchObject({ success: true, cdp_url: expect.stringMatching(/^ws:\/\//) });
    expect(result.ran).toMatchObject({
      success: true,
      exit_code: 0,
      // A new session shows about:blank (no title).
      result: '',
      killed: false,
    });
    expect(result.ran.stdout).toBe('about:blank\n');
    expect(result.shell).toMatchObject({ success: true, stdout: 'hi\n', exit_code: 0 });
    expect(result.active).toContain(result.created.id);
    expect(result.deleted).toMatchObject({ success: true, status: 'stopped', credits_billed: 2 });
    expect(result.destroyed).toEqual(['destroyed']);
    // The replayed click: the counter shows 1.
    expect(result.first).toMatchObject({ success: true, result: '1', exit_code: 0 });
    // firecrawl-py raises when interact reports success: false.
    expect(result.failure).toMatch(/from node/);
    expect(result.stopped).toMatchObject({ success: true, credits_billed: 2 });
  }, 180_000);

  it('kills code past its timeout and keeps the session usable', async () => {
    const client = await sdk();
    const { id } = await client.browser({ ttl: 60 });
    const spin = await client.browserExecute(id!, { code: 'while (true) {}', language: 'node', timeout: 2 });
    expect(spin).toMatchObject({ killed: true, exitCode: 137, success: true });
    expect(spin.error).toMatch(/timed out/);
    const next = await client.browserExecute(id!, { code: '6 * 7', language: 'node' });
    expect(next).toMatchObject({ result: '42', exitCode: 0 });
    const big = await client.browserExecute(id!, {
      code: "process.stdout.write('x'.repeat(3 * 1024 * 1024)); 'done'",
      language: 'node',
    });
    // stdout is cut at 512 KiB (the reply must fit one NATS message).
    expect(big.stdout?.length).toBe(512 * 1024);
    expect(big).toMatchObject({ result: 'done', truncated: true });
    await client.deleteBrowser(id!);
  }, 60_000);

  it('hands out a cdpUrl that playwright drives from outside; wrong or ended tokens are refused', async () => {
    const client = await sdk();
    const created = await client.browser({ ttl: 60 });
    await client.browserExecute(created.id!, {
      code: `await page.goto('${site.url}/cdp')`,
      language: 'node',
    });
    const browser = await chromium.connectOverCDP(created.cdpUrl!);
    const page = browser.contexts()[0].pages()[0];
    expect(await page.title()).toBe('Counter /cdp');
    await page.click('#inc');
    const seen = await client.browserExecute(created.id!, {
      code: "await page.textContent('#n')",
      language: 'node',
    });
    expect(seen.result).toBe('1');
    await browser.close().catch(() => undefined);

    const wrong = created.cdpUrl!.replace(/\/cdp\/[^/]+$/, `/cdp/${randomBytes(32).toString('base64url')}`);
    await expect(chromium.connectOverCDP(wrong, { timeout: 5000 })).rejects.toThrow();
    await client.deleteBrowser(created.id!);
    await expect(chromium.connectOverCDP(created.cdpUrl!, { timeout: 5000 })).rejects.toThrow();
  }, 60_000);

  it('interacts with a scrape at its page state, reuses the session, bills the stop, then answers 410', async () => {
    const client = await sdk();
    const doc = await client.scrape(`${site.url}/scraped`, {
      formats: ['markdown'],
      actions: [
        { type: 'click', selector: '#inc' },
        { type: 'click', selector: '#inc' },
        { type: 'executeJavascript', script: "document.getElementById('n').textContent = '100'" },
      ],
    });
    const jobId = doc.metadata!.scrapeId as string;
    const first = await client.interact(jobId, { code: "await page.textContent('#n')" });
    // The clicks are replayed, executeJavascript is not.
    expect(first).toMatchObject({ success: true, result: '2', exitCode: 0, killed: false });
    const sessionId = (first as { sessionId?: string }).sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const second = await client.interact(jobId, {
      code: "await page.click('#inc'); await page.textContent('#n')",
    });
    expect(second).toMatchObject({ result: '3', sessionId });
    const failed = await client.interact(jobId, { code: 'nope(' });
    expect(failed).toMatchObject({ success: false, exitCode: 1 });

    // This stack runs without an LLM: a prompt is refused before any work (agent-interact.spec.ts
    // runs prompts with a model).
    const prompt = await call('POST', `/v2/scrape/${jobId}/interact`, { prompt: 'click the button' });
    expect(prompt.status).toBe(400);
    expect(prompt.body.error).toMatch(/browser agent needs an LLM.*WDS_LLM_BASE_URL/);

    const stopped = await client.stopInteraction(jobId);
    expect(stopped).toMatchObject({ success: true, creditsBilled: 2 });
    const after = await call('POST', `/v2/scrape/${jobId}/interact`, { code: '1' });
    expect(after.status).toBe(410);
    expect(after.body).toMatchObject({ success: false, error: 'Browser session has been destroyed.' });
  }, 120_000);

  it('interacts with a scrape the fetch engine served (its URL is opened)', async () => {
    const client = await sdk();
    const doc = await client.scrape(`${site.url}/plain`, { formats: ['markdown'] });
    const jobId = doc.metadata!.scrapeId as string;
    const r = await client.interact(jobId, { code: 'await page.title()' });
    expect(r).toMatchObject({ success: true, result: 'Counter /plain' });
    await client.stopInteraction(jobId);
  }, 60_000);

  it('answers 404, 403, 402 and 429 as the spec says', async () => {
    const unknown = await call('POST', `/v2/scrape/${crypto.randomUUID()}/interact`, { code: '1' });
    expect(unknown.status).toBe(404);
    const noSession = await call('DELETE', `/v2/scrape/${crypto.randomUUID()}/interact`);
    expect(noSession.status).toBe(404);

    const other = await adminTeam(1000);
    const client = await sdk();
    const { id } = await client.browser({ ttl: 60 });
    const doc = await client.scrape(`${site.url}/mine`, { formats: ['markdown'] });
    expect((await call('POST', `/v2/browser/${id}/execute`, { code: '1' }, other.apiKey)).status).toBe(403);
    expect((await call('DELETE', `/v2/browser/${id}`, undefined, other.apiKey)).status).toBe(403);
    const foreign = await call(
      'POST',
      `/v2/scrape/${doc.metadata!.scrapeId}/interact`,
      { code: '1' },
      other.apiKey,
    );
    expect(foreign.status).toBe(403);
    await client.deleteBrowser(id!);

    const poor = await adminTeam(10);
    const short = await call('POST', '/v2/browser', { ttl: 600 }, poor.apiKey);
    expect(short.status).toBe(402);
    expect(short.body.error).toMatch(/600s browser session \(requires 20 credits/);
    expect(await balance(poor.teamId)).toBe(10);

    const limited = await adminTeam(1000, { maxBrowserSessions: 1 });
    const one = await call('POST', '/v2/browser', { ttl: 60 }, limited.apiKey);
    expect(one.status).toBe(200);
    const two = await call('POST', '/v2/browser', { ttl: 60 }, limited.apiKey);
    expect(two.status).toBe(429);
    expect(two.body.error).toMatch(/Maximum concurrent browser sessions reached \(1\)/);
    await call('DELETE', `/v2/browser/${one.body.id}`, undefined, limited.apiKey);
    const three = await call('POST', '/v2/browser', { ttl: 60 }, limited.apiKey);
    expect(three.status).toBe(200);
    await call('DELETE', `/v2/browser/${three.body.id}`, undefined, limited.apiKey);

    const bad = await call('POST', '/v2/browser', { ttl: 5 });
    expect(bad.status).toBe(400);
    const accepted = await call('POST', '/v2/browser', {
      ttl: 30,
      blockAds: true,
      location: { country: 'GB' },
    });
    expect(accepted.status).toBe(200);
    await call('DELETE', `/v2/browser/${accepted.body.id}`);
  }, 120_000);

  it("holds one of the team's concurrency slots while a session is active, and frees it when it ends", async () => {
    const team = await adminTeam(1000, { maxConcurrency: 2, maxBrowserSessions: 5 });
    // A generous timeout: the slow one stays in flight until released, however loaded the machine.
    const scrape = (path: string) =>
      call(
        'POST',
        '/v2/scrape',
        { url: `${site.url}${path}`, formats: ['markdown'], timeout: 110_000 },
        team.apiKey,
      );
    const session = await call('POST', '/v2/browser', { ttl: 120 }, team.apiKey);
    expect(session.status).toBe(200);
    const arrived = slow.arrived();
    const inFlight = scrape(`/slow/${randomBytes(4).toString('hex')}`);
    await arrived;
    try {
      // The session and the slow scrape fill the limit of 2: a third request is refused (429).
      const refused = await scrape(`/page-${randomBytes(4).toString('hex')}`);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatch(/Concurrency limit reached: at most 2/);
      expect((await call('POST', '/v2/browser', { ttl: 60 }, team.apiKey)).status).toBe(429);
      // The session's own calls run on its slot.
      const ran = await call(
        'POST',
        `/v2/browser/${session.body.id}/execute`,
        { code: '1 + 1' },
        team.apiKey,
      );
      expect(ran.status).toBe(200);
      expect(ran.body.result).toBe('2');
      // Ending it gives the slot back.
      expect((await call('DELETE', `/v2/browser/${session.body.id}`, undefined, team.apiKey)).status).toBe(
        200,
      );
      const admitted = await scrape(`/page-${randomBytes(4).toString('hex')}`);
      expect(admitted.status).toBe(200);
    } finally {
      slow.release();
    }
    expect((await inFlight).status).toBe(200);
    // With the scrape done, a session and a request fit again; a second session fills the limit.
    const one = await call('POST', '/v2/browser', { ttl: 60 }, team.apiKey);
    const two = await call('POST', '/v2/browser', { ttl: 60 }, team.apiKey);
    expect([one.status, two.status]).toEqual([200, 200]);
    const third = await scrape(`/page-${randomBytes(4).toString('hex')}`);
    expect(third.status).toBe(429);
    for (const s of [one, two])
      expect((await call('DELETE', `/v2/browser/${s.body.id}`, undefined, team.apiKey)).status).toBe(200);
    expect((await scrape(`/page-${randomBytes(4).toString('hex')}`)).status).toBe(200);
  }, 300_000);

  describe('the code sandbox (hostile code)', () => {
    let id: string;
    const run = async (code: string, timeout = 30) => {
      const client = await sdk();
      return client.browserExecute(id, { code, language: 'node', timeout });
    };

    beforeAll(async () => {
      const client = await sdk();
      id = (await client.browser({ ttl: 300 })).id!;
    });

    afterAll(async () => {
      await call('DELETE', `/v2/browser/${id}`);
    });

    it('sees no service environment, files or secrets', async () => {
      const env = await run('Object.keys(process.env).sort().join(",")');
      expect(env.result).toBe('HOME,LANG,PATH,PWD,WDS_CDP_URL');
      const init = await run("require('fs').readFileSync('/proc/1/environ', 'utf8')");
      expect(init.result).not.toMatch(/DATABASE_URL|NATS_URL|WDS_|KEY/);
      const files = await run(`
        const fs = require('fs');
        const probe = (p) => { try { fs.readFileSync(p); return 'read'; } catch (e) { return e.code; } };
        JSON.stringify({
          shadow: probe('/etc/shadow'), passwd: probe('/etc/passwd'), repo: fs.existsSync(${JSON.stringify(process.cwd())}),
          root: fs.readdirSync('/').sort(), tmp: fs.readdirSync('/tmp'),
        })`);
      const seen = JSON.parse(files.result ?? '{}');
      expect(seen).toMatchObject({ shadow: 'ENOENT', passwd: 'ENOENT', repo: false });
      // A private /tmp: only what the runtime itself created (Playwright's artifacts directory).
      for (const entry of seen.tmp) expect(entry).toMatch(/^playwright-artifacts-/);
      expect(seen.root).toEqual(expect.arrayContaining(['usr', 'proc', 'tmp', 'work']));
      expect(seen.root).not.toContain('home');
    }, 60_000);

    it('errors out reading /root (absent)', async () => {
      const r = await run("require('fs').readdirSync('/root')");
      expect(r.error).toMatch(/ENOENT/);
    }, 30_000);

    it('reaches no host port (PostgreSQL, NATS, the gateway, other browsers) and no metadata address', async () => {
      // Every TCP port listening on this host's loopback or any address: the stack's services and
      // every session's Chromium debugging port among them.
      const listening = new Set<number>();
      for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
        for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
          const cols = line.trim().split(/\s+/);
          if (cols[3] === '0A') listening.add(parseInt(cols[1].split(':').pop(), 16));
        }
      }
      expect(listening.has(e2e!.port)).toBe(true);
      const ports = [...listening];
      const r = await run(
        `
        const net = require('net');
        const tryConnect = (host, port) => new Promise((resolve) => {
          const s = net.connect({ host, port, timeout: 1500 });
          s.on('connect', () => { s.destroy(); resolve('open'); });
          s.on('timeout', () => { s.destroy(); resolve('timeout'); });
          s.on('error', (e) => resolve(e.code));
        });
        const out = {};
        for (const p of ${JSON.stringify(ports)}) if (p !== 9222) out[p] = await tryConnect('127.0.0.1', p);
        out.metadata = await tryConnect('169.254.169.254', 80);
        out.outside = await tryConnect('1.1.1.1', 443);
        JSON.stringify(out)`,
        120,
      );
      const results = JSON.parse(r.result ?? '{}');
      expect(Object.keys(results).length).toBe(ports.filter((p) => p !== 9222).length + 2);
      for (const [port, outcome] of Object.entries(results))
        expect([port, outcome]).not.toEqual([port, 'open']);
    }, 150_000);

    it('cannot reach another session through its own browser, nor private addresses from the page', async () => {
      const client = await sdk();
      const other = (await client.browser({ ttl: 60 })).id!;
      await client.browserExecute(other, {
        code: `await page.goto('${site.url}/other-session')`,
        language: 'node',
      });
      const mine = await run(`
        const urls = browser.contexts().flatMap((c) => c.pages().map((p) => p.url()));
        JSON.stringify(urls)`);
      expect(mine.result).not.toContain('other-session');
      const blocked = await run(`
        const p = await context.newPage();
        const r = await p.goto('http://169.254.169.254/latest/meta-data/').then((res) => String(res && res.status()), (e) => 'failed');
        const file = await p.goto('file:///etc/passwd').then(async () => (await p.content()).includes('root:') ? 'read' : 'no', () => 'failed');
        await p.close();
        JSON.stringify({ r, file })`);
      const seen = JSON.parse(blocked.result ?? '{}');
      expect(seen.r === 'failed' || seen.r === '403').toBe(true);
      expect(seen.file).not.toBe('read');
      const ctx = await run(`
        const cdp = await browser.newBrowserCDPSession();
        await cdp.send('Target.createBrowserContext', { proxyServer: 'http://10.0.0.1:3128' }).then(() => 'created', (e) => e.message)`);
      expect(ctx.result).toMatch(/Refused by the platform/);
      await client.deleteBrowser(other);
    }, 60_000);

    it('bounds processes (fork bomb) and memory (4 GB), and the session stays usable', async () => {
      const bomb = await run(
        `
        const cp = require('child_process');
        let spawned = 0, failed = 0;
        await new Promise((resolve) => {
          let pending = 400;
          const done = () => { if (--pending === 0) resolve(); };
          for (let i = 0; i < 400; i++) {
            let c;
            try { c = cp.spawn('/usr/bin/sleep', ['20']); } catch { failed++; done(); continue; }
            c.on('spawn', () => { spawned++; done(); });
            c.on('error', () => { failed++; done(); });
          }
        });
        JSON.stringify({ spawned, failed })`,
        60,
      );
      const counts = JSON.parse(bomb.result ?? '{}');
      expect(counts.failed).toBeGreaterThan(0);
      expect(counts.spawned).toBeLessThan(100);
      const mem = await run('const big = Buffer.alloc(4 * 1024 ** 3, 1); big.length', 60);
      expect(mem.exitCode).not.toBe(0);
      const after = await run('await page.evaluate(() => 6 * 7)');
      expect(after).toMatchObject({ result: '42', exitCode: 0 });
    }, 120_000);
  });

  it('ends a session after activityTtl without activity and bills it', async () => {
    const team = await adminTeam(100);
    const created = await call('POST', '/v2/browser', { ttl: 60, activityTtl: 10 }, team.apiKey);
    expect(created.status).toBe(200);
    const deadline = Date.now() + 30_000;
    let status = 'active';
    while (status === 'active' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const list = await call('GET', '/v2/browser', undefined, team.apiKey);
      status = list.body.sessions[0].status;
    }
    expect(status).toBe('destroyed');
    expect(await balance(team.teamId)).toBe(98);
    expect(
      (await call('POST', `/v2/browser/${created.body.id}/execute`, { code: '1' }, team.apiKey)).status,
    ).toBe(410);
  }, 60_000);
});
