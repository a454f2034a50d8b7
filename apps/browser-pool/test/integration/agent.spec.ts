import { randomUUID } from 'node:crypto';
import { PageAgentBrowser } from '@wds/agent';
import { WebSocket } from 'ws';
import {
  agentCancelRpc,
  agentStepRpc,
  agentViewRpc,
  AGENT_MAX_STEPS,
  AGENT_RPC_MARGIN_MS,
  BROWSER_AGENT_RPC,
  ServiceError,
  type AgentRunRequestInput,
  type AgentStep,
} from '@wds/contracts';
import type { RunningModelServer } from '@wds/local-infra';
import {
  AGENT_SITE_FACTS,
  AGENT_SITE_SESSION,
  MODEL_SERVER_START_TIMEOUT_MS,
  startAgentSite,
  startTestModelServer,
  type AgentSite,
} from '@wds/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { defaultChromiumPath } from '../../src/pool/browser-launcher';
import { BrowserPool } from '../../src/pool/browser-pool';
import { startBrowserPool, type PoolHarness } from '../support/pool-harness';

// CPU-bound model steps on a shared 2-core machine: generous budgets, no timing assertions.
jest.setTimeout(900_000);

describe('agent browser: actions by ref on a real Chromium page', () => {
  let site: AgentSite;
  let browser: Browser;
  let page: Page;
  let hands: PageAgentBrowser;

  beforeAll(async () => {
    site = await startAgentSite();
    browser = await chromium.launch({ executablePath: defaultChromiumPath() });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
    hands = new PageAgentBrowser(page);
  });
  afterEach(async () => {
    hands.release();
    await page.context().close();
  });

  const refFor = (snapshot: string, text: string): string => {
    const line = snapshot.split('\n').find((l) => l.includes(text) && l.includes('[ref='));
    const m = line && /\[ref=((?:f\d+)?e\d+)\]/.exec(line);
    if (!m) throw new Error(`no ref for ${text} in\n${snapshot}`);
    return m[1];
  };

  it('reaches a value behind two clicks through snapshot refs', async () => {
    await hands.open(`${site.url}/`, 20_000);
    let snap = await hands.snapshot(10_000);
    expect(snap).toContain('link "Catalogue"');
    await hands.perform({ action: 'click', ref: refFor(snap, 'link "Catalogue"') }, 20_000);
    snap = await hands.snapshot(10_000);
    const lines = snap.split('\n');
    const blue = lines.findIndex((l) => l.includes(AGENT_SITE_FACTS.partItem));
    const details = lines.slice(blue).find((l) => l.includes('link "details"'));
    const ref = details && /\[ref=((?:f\d+)?e\d+)\]/.exec(details);
    if (!ref) throw new Error(`no details link after the blue widget in\n${snap}`);
    await hands.perform({ action: 'click', ref: ref[1] }, 20_000);
    expect(hands.url()).toBe(`${site.url}/item/blue`);
    const text = await hands.perform({ action: 'extract' }, 20_000);
    expect(text).toContain(AGENT_SITE_FACTS.partNumber);
  });

  it('fills, selects and submits a form', async () => {
    await hands.open(`${site.url}/contact`, 20_000);
    const snap = await hands.snapshot(10_000);
    await hands.perform(
      { action: 'fill', ref: refFor(snap, 'textbox "Name"'), text: 'Ada Lovelace', submit: false },
      20_000,
    );
    await hands.perform(
      { action: 'fill', ref: refFor(snap, 'textbox "Email"'), text: 'ada@example.org', submit: false },
      20_000,
    );
    const chosen = await hands.perform(
      { action: 'select', ref: refFor(snap, 'combobox "Topic"'), option: 'Billing' },
      20_000,
    );
    expect(chosen).toBe('selected billing');
    await hands.perform({ action: 'click', ref: refFor(snap, 'button "Send message"') }, 20_000);
    expect(site.submissions).toContainEqual(
      expect.objectContaining({ name: 'Ada Lovelace', topic: 'billing' }),
    );
    expect(await hands.snapshot(10_000)).toMatch(/ticket number is T-\d{5}/);
  });

  it('closes every tab a page opens (target=_blank, window.open): one tab only', async () => {
    await hands.open(`${site.url}/popup`, 20_000);
    const snap = await hands.snapshot(10_000);
    const note = await hands.perform(
      { action: 'click', ref: refFor(snap, 'link "Catalogue in a new tab"') },
      20_000,
    );
    expect(note).toMatch(/new tab .* closed/);
    await hands.perform({ action: 'click', ref: refFor(snap, 'button "Open archive window"') }, 20_000);
    // Positive barrier: the listener closes the tab as soon as it appears.
    const deadline = Date.now() + 20_000;
    while (page.context().pages().length > 1 && Date.now() < deadline) await page.waitForTimeout(50);
    expect(page.context().pages()).toEqual([page]);
    expect(hands.popupsClosed).toBe(2);
    expect(hands.url()).toBe(`${site.url}/popup`);
  });

  it('fails an action on an element that is not there (the loop logs it as an error)', async () => {
    await hands.open(`${site.url}/`, 20_000);
    await hands.snapshot(10_000);
    await expect(hands.perform({ action: 'click', ref: 'e999' }, 2000)).rejects.toThrow();
  });
});

describe('wds.browser-pool.v1.agent.run with a real model server (SmolLM2: plumbing, not quality)', () => {
  let site: AgentSite;
  let model: RunningModelServer;
  let pool: PoolHarness;

  beforeAll(async () => {
    model = await startTestModelServer({ contextTokens: 4096 });
    site = await startAgentSite();
    pool = await startBrowserPool({
      WDS_PRIVATE_NETWORK_ALLOWLIST: `127.0.0.1:${site.port}`,
      WDS_LLM_BASE_URL: model.baseUrl,
      WDS_LLM_MODEL: model.modelName,
      WDS_LLM_CONTEXT_TOKENS: '4096',
      WDS_AGENT_RUNS: '1',
    });
  }, MODEL_SERVER_START_TIMEOUT_MS);
  afterAll(async () => {
    await pool?.stop();
    await site?.close();
    await model?.stop();
  });

  const run = (req: Partial<AgentRunRequestInput>) =>
    pool.client.request(
      BROWSER_AGENT_RPC.run,
      {
        teamId: 'team-a',
        jobId: req.jobId ?? randomUUID(),
        prompt: `Find the part number of the ${AGENT_SITE_FACTS.partItem}.`,
        urls: [`${site.url}/`],
        timeoutMs: 600_000,
        ...req,
      },
      { timeoutMs: (req.timeoutMs ?? 600_000) + AGENT_RPC_MARGIN_MS },
    );

  it('runs the loop within its step limit and reports steps, tokens, browser time and the page', async () => {
    const reply = await run({ maxSteps: 2 });
    expect({ status: reply.status, output: reply.output }).toEqual({
      status: expect.stringMatching(/^(completed|max_steps)$/),
      output: expect.any(String),
    });
    expect(reply.steps.length).toBeGreaterThan(0);
    expect(reply.steps.length).toBeLessThanOrEqual(2);
    if (reply.status === 'max_steps') {
      expect(reply.steps).toHaveLength(2);
      expect(reply.output).toMatch(/step limit \(2\)/);
    }
    for (const s of reply.steps) {
      expect(s).toMatchObject({
        step: expect.any(Number),
        action: expect.any(String),
        outcome: expect.stringMatching(/^(ok|refused|error)$/),
      });
    }
    expect(reply.tokens.input).toBeGreaterThan(0);
    expect(reply.tokens.output).toBeGreaterThan(0);
    expect(reply.model).toBe(model.modelName);
    expect(reply.browserMs).toBeGreaterThan(0);
    expect(reply.finalUrl.startsWith(site.url)).toBe(true);
    expect(reply.finalSnapshot).toContain('[ref=');
    expect(site.hits('/')).toBeGreaterThan(0);
  });

  it("reports each step live to the run's step subject (stepsTo), in order, with `at`, before the reply", async () => {
    const pool$ = pool.service.app.get(BrowserPool, { strict: false }) as BrowserPool<unknown>;
    const runId = randomUUID();
    const live: { runId: string; step: AgentStep; runGoingOn: boolean }[] = [];
    // The caller's side (the batch worker in production), on the test's own connection. A report
    // that arrives while the run's browser context is still open was sent during the run.
    const stopServing = pool.client.serve(agentStepRpc(runId), async (report) => {
      live.push({ ...report, runGoingOn: pool$.stats().activeContexts > 0 });
      return { recorded: true };
    });
    try {
      const sent = Date.now();
      // With a schema, a finished run makes one more model call (the data) after its last step.
      const schema = {
        type: 'object',
        properties: { found: { type: 'boolean' } },
        required: ['found'],
        additionalProperties: false,
      };
      const reply = await run({ maxSteps: 2, schema, stepsTo: runId });
      const received = Date.now();
      // Every step of the reply was reported once, in order, as it is in the reply, and before it.
      expect(reply.steps.length).toBeGreaterThan(0);
      expect(live.map((l) => l.step)).toEqual(reply.steps);
      expect(live.every((l) => l.runId === runId)).toBe(true);
      const at = reply.steps.map((s) => s.at);
      for (const t of at) {
        expect(Number.isInteger(t)).toBe(true);
        expect(t).toBeGreaterThanOrEqual(sent);
        expect(t).toBeLessThanOrEqual(received);
      }
      expect([...at].sort((a, b) => a! - b!)).toEqual(at);
      // Live, not with the reply: every step followed by a model call (the next step's, or the data
      // call after `finish`) was received while the run was still going on.
      const followedByModelCall = live.map((_, i) => i < live.length - 1 || reply.status === 'completed');
      expect(followedByModelCall.some(Boolean)).toBe(true);
      live.forEach((l, i) => {
        if (followedByModelCall[i])
          expect({ step: l.step.step, runGoingOn: l.runGoingOn }).toEqual({
            step: l.step.step,
            runGoingOn: true,
          });
      });
    } finally {
      stopServing();
    }
  });

  it('with a schema, returns data valid against it when the model finishes', async () => {
    const schema = {
      type: 'object',
      properties: { partNumber: { type: 'string' } },
      required: ['partNumber'],
    };
    const reply = await run({ maxSteps: 1, schema });
    expect(reply.steps).toHaveLength(1);
    if (reply.status === 'completed') {
      // A 135M model's value is not checked, only that it is schema-valid when present.
      if (reply.data !== undefined)
        expect(typeof (reply.data as { partNumber: unknown }).partNumber).toBe('string');
      else expect(reply.warnings.length).toBeGreaterThan(0);
    } else expect(reply.status).toBe('max_steps');
  });

  it("continues a thread's browser state: the next turn has the cookies and localStorage the last one left, for that team and thread only", async () => {
    const threadId = randomUUID();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const prompt = 'Say what the page says.';
    const account = `${site.url}/account`;
    /** The first request for /account and the cart its script reported, of the next run. */
    const visit = async (req: Partial<AgentRunRequestInput>) => {
      const n = site.requests('/account').length;
      const c = site.requests('/account/cart').length;
      await run({ maxSteps: 1, prompt, urls: [account], ...req });
      // The page's script reports its cart once loaded: a positive barrier, not a sleep.
      const deadline = Date.now() + 20_000;
      while (site.requests('/account/cart').length === c && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      return {
        cookie: site.requests('/account')[n]?.cookie,
        cart: site.requests('/account/cart')[c]?.query,
      };
    };

    await run({
      maxSteps: 1,
      prompt,
      urls: [`${site.url}/account/sign-in`],
      threadState: { threadId, expiresAt },
    });
    expect(await visit({ threadState: { threadId, expiresAt } })).toEqual({
      cookie: `shop_session=${AGENT_SITE_SESSION}`,
      cart: '?c=blue-widget',
    });
    // Another team with the same thread id, another thread, zero data retention, no thread: afresh.
    const afresh = { cookie: '', cart: '?c=empty' };
    expect(await visit({ teamId: 'team-b', threadState: { threadId, expiresAt } })).toEqual(afresh);
    expect(await visit({ threadState: { threadId: randomUUID(), expiresAt } })).toEqual(afresh);
    expect(await visit({ threadState: { threadId, expiresAt }, zeroDataRetention: true })).toEqual(afresh);
    expect(await visit({})).toEqual(afresh);
    // The thread's state is still there for its next turn (the runs above did not touch it).
    expect((await visit({ threadState: { threadId, expiresAt } })).cookie).toBe(
      `shop_session=${AGENT_SITE_SESSION}`,
    );
  });

  it('stops with status timeout when the deadline comes first', async () => {
    const reply = await run({ timeoutMs: 1000 });
    expect(reply.status).toBe('timeout');
    expect(reply.output).toMatch(/ran out of time/);
    expect(reply.steps.length).toBeLessThan(AGENT_MAX_STEPS);
  });

  it('refuses a start URL outside the allowed domains and a private one, without opening it', async () => {
    const outside = await run({ allowedDomains: ['shop.example'] });
    expect(outside.status).toBe('failed');
    expect(outside.output).toMatch(/start URL is not allowed.*outside the allowed domains/);
    expect(outside.steps).toHaveLength(0);
    // The network policy under the agent: a private address that is not allow-listed.
    const priv = await run({ urls: ['http://10.0.0.1/'], timeoutMs: 60_000 });
    expect(priv.status).toBe('failed');
    expect(priv.output).toMatch(/start page could not be opened/);
  });

  it('stops a run in progress through its cancel subject: reply cancelled within a step, slot and context freed', async () => {
    const jobId = randomUUID();
    const cancel = () => pool.client.request(agentCancelRpc(jobId), { jobId }, { timeoutMs: 5000 });
    // Nothing runs under this job yet: no replica serves its cancel subject.
    expect(await cancel().catch((e: unknown) => (e as ServiceError).code)).toBe('SERVICE_UNAVAILABLE');
    const opened = site.hits('/');
    const running = run({ jobId, timeoutMs: 900_000 });
    // The run is in flight once its start page was served (the model is asked right after).
    const until = Date.now() + 300_000;
    while (site.hits('/') === opened) {
      if (Date.now() > until) throw new Error('the agent never opened its start page');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await cancel()).toEqual({ stopped: true });
    const reply = await running;
    expect(reply.status).toBe('cancelled');
    expect(reply.output).toMatch(/cancelled after \d+ steps/);
    // Stopped before its next step: at most the step in progress when the cancel came was logged.
    expect(reply.steps.length).toBeLessThanOrEqual(1);
    expect(reply.browserMs).toBeGreaterThan(0);
    // Its cancel subject is gone with it, and its agent slot (WDS_AGENT_RUNS=1) and context are free.
    expect(await cancel().catch((e: unknown) => (e as ServiceError).code)).toBe('SERVICE_UNAVAILABLE');
    const next = await run({ maxSteps: 1 });
    expect(next.steps).toHaveLength(1);
  });

  it("shows a run live while it lasts: its view subject names the replica's endpoint and a token, the screencast opens with it only", async () => {
    const jobId = randomUUID();
    const view = () => pool.client.request(agentViewRpc(jobId), { jobId }, { timeoutMs: 5000 });
    expect(await view().catch((e: unknown) => (e as ServiceError).code)).toBe('SERVICE_UNAVAILABLE');
    const opened = site.hits('/');
    const running = run({ jobId, timeoutMs: 900_000 });
    const until = Date.now() + 300_000;
    while (site.hits('/') === opened) {
      if (Date.now() > until) throw new Error('the agent never opened its start page');
      await new Promise((r) => setTimeout(r, 100));
    }
    const shown = await view();
    expect(shown).toEqual({
      endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      viewport: { width: expect.any(Number), height: expect.any(Number) },
    });
    const wsBase = `${shown.endpoint.replace(/^http/, 'ws')}/agents/${jobId}/live`;
    // The first frame: the page the agent works on, as a JPEG.
    const socket = new WebSocket(`${wsBase}/${shown.token}`);
    const frame = await new Promise<{ type: string; data: string; width: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame within 60 s')), 60_000);
      socket.once('message', (m) => {
        clearTimeout(timer);
        resolve(JSON.parse(String(m)));
      });
      socket.once('error', reject);
    });
    expect(frame.type).toBe('frame');
    expect(Buffer.from(frame.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    // Another token opens nothing.
    const wrong = new WebSocket(`${wsBase}/${'A'.repeat(43)}`);
    const refused = await new Promise<number>((resolve) => {
      wrong.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      wrong.once('open', () => resolve(101));
      wrong.once('error', () => resolve(-1));
    });
    expect(refused).toBe(404);
    // Once the run ends its view closes and its subject is gone.
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    expect(await pool.client.request(agentCancelRpc(jobId), { jobId }, { timeoutMs: 5000 })).toEqual({
      stopped: true,
    });
    expect((await running).status).toBe('cancelled');
    expect(await closed).toBe(1001);
    expect(await view().catch((e: unknown) => (e as ServiceError).code)).toBe('SERVICE_UNAVAILABLE');
  });

  it('does not run an agent run again when its browser dies: it ends failed with what it spent', async () => {
    const pool$ = pool.service.app.get(BrowserPool, { strict: false }) as BrowserPool<unknown>;
    const crashes = pool$.stats().crashes;
    const opened = site.hits('/');
    const running = run({ timeoutMs: 600_000 });
    // In flight once its start page was served (the model is asked right after): kill its browser.
    const until = Date.now() + 300_000;
    while (site.hits('/') === opened) {
      if (Date.now() > until) throw new Error('the agent never opened its start page');
      await new Promise((r) => setTimeout(r, 100));
    }
    const [pid] = pool$.browserPids();
    process.kill(pid, 'SIGKILL');
    const reply = await running;
    expect(reply.status).toBe('failed');
    expect(reply.output).toMatch(/browser crashed during the run.*not repeated/);
    // Not started again on the replacement browser: the start page was opened once.
    expect(site.hits('/')).toBe(opened + 1);
    expect(reply.browserMs).toBeGreaterThan(0);
    expect(pool$.stats().crashes).toBe(crashes + 1);
    // The replacement serves the next run.
    const next = await run({ maxSteps: 1 });
    expect(next.steps).toHaveLength(1);
  });

  it('stops with status max_tokens before a model call the token budget cannot pay for', async () => {
    const none = await run({ maxTokens: 1 });
    expect(none.status).toBe('max_tokens');
    expect(none.output).toMatch(/token budget \(1 tokens, 0 used\) after 0 steps/);
    expect(none.steps).toHaveLength(0);
    expect(none.tokens.input + none.tokens.output).toBe(0);
    // A budget for about one step: the first call fits, and the run ends on the budget (or the
    // model finishes at once) instead of going on to its step limit.
    const one = await run({ maxSteps: 1 });
    const perStep = one.tokens.input + one.tokens.output;
    expect(perStep).toBeGreaterThan(0);
    const budget = Math.ceil(perStep * 1.5);
    const limited = await run({ maxTokens: budget });
    expect(['max_tokens', 'completed']).toContain(limited.status);
    expect(limited.steps.length).toBeLessThan(AGENT_MAX_STEPS);
    if (limited.status === 'max_tokens') expect(limited.output).toMatch(/token budget/);
  });

  it('answers a clear 400 for a schema that cannot be compiled, before any browser work', async () => {
    const err = await run({ schema: { type: 'object', properties: { a: { type: 'nonsense' } } } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('BAD_REQUEST');
    expect((err as ServiceError).message).toMatch(/^schema:/);
  });
});

describe('wds.browser-pool.v1.agent.run without an LLM', () => {
  let pool: PoolHarness;
  beforeAll(async () => {
    pool = await startBrowserPool({});
  }, 120_000);
  afterAll(() => pool?.stop());

  it('answers BAD_REQUEST naming WDS_LLM_BASE_URL', async () => {
    const err = await pool.client
      .request(
        BROWSER_AGENT_RPC.run,
        { teamId: 't', jobId: 'j', prompt: 'x', timeoutMs: 5000 },
        { timeoutMs: 30_000 },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('BAD_REQUEST');
    expect((err as ServiceError).message).toMatch(/WDS_LLM_BASE_URL/);
  });
});
