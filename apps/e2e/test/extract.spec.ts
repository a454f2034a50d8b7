import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import type { RunningSearxng } from '@wds/local-infra';
import { compileSchema } from '@wds/llm';
import { startSearchFixtureBackend, startTestSearxng, type SearchFixtureBackend } from '@wds/testing';
import { listenLocal, type LocalServer } from './support/http';
import { pythonSdk } from './support/python-sdk';
import { smallLocalModel, startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// Extract and agent jobs through the whole stack as `npm start` runs it, with its embedded
// llama.cpp server (SmolLM2-135M: plumbing, not answer quality), driven by both official SDKs'
// waiters. An extract without urls (or with enableWebSearch) finds its pages through a real SearXNG
// whose only engine is a fixture search backend listing the shop's pages. CPU-bound on a shared
// machine: generous timeouts, no timed assertions.

const READY_TIMEOUT_MS = 600_000;
const KEY = `e2e-extract-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    colours: { type: 'array', items: { type: 'string' }, maxItems: 3 },
  },
  required: ['name', 'colours'],
};
const product = (name: string, colour: string) =>
  `<html><head><title>${name}</title></head><body><main><h1>${name}</h1><p>The ${name} comes in ${colour}.</p></main></body></html>`;

describe('extract through the stack (Firecrawl JS and Python SDKs)', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: LocalServer;
  let backend: SearchFixtureBackend;
  let searxng: RunningSearxng | undefined;
  /** Webhook deliveries the site received, by path. */
  const hooks = new Map<
    string,
    { type: string; success: boolean; data: unknown[]; [k: string]: unknown }[]
  >();
  /** The deliveries to `path` once one of `ending` arrived (a positive barrier). */
  const deliveredUntil = async (path: string, ending: string[]) => {
    const until = Date.now() + 300_000;
    for (;;) {
      const got = hooks.get(path) ?? [];
      if (got.some((e) => ending.includes(e.type))) return got;
      if (Date.now() > until) throw new Error(`no ${ending.join('/')} at ${path}: ${JSON.stringify(got)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    site = await listenLocal((req, res) => {
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (req.method === 'POST' && req.url?.startsWith('/hooks/')) {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const list = hooks.get(req.url!) ?? [];
          list.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          hooks.set(req.url!, list);
          res.writeHead(204).end();
        });
        return;
      }
      if (req.url === '/shop') {
        return html(
          '<html><body><a href="/shop/kettle">Kettle</a> <a href="/shop/mug">Mug</a> <a href="/about">About</a></body></html>',
        );
      }
      if (req.url === '/shop/kettle') return html(product('Blue Kettle', 'blue'));
      if (req.url === '/shop/mug') return html(product('Red Mug', 'red'));
      if (req.url === '/about') return html('<html><body><h1>About us</h1></body></html>');
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    // Every word of a product question is on these entries: whatever query the small model writes
    // from the prompt (or the prompt itself) finds the two product pages.
    const words = 'product name names colour colours color colors price shop page item';
    backend = await startSearchFixtureBackend([
      { kind: 'web', url: `${site.url}/shop/kettle`, title: 'Blue Kettle', content: `kettle ${words}` },
      { kind: 'web', url: `${site.url}/shop/mug`, title: 'Red Mug', content: `mug ${words}` },
    ]);
    searxng = await startTestSearxng(backend);
    e2e = await startSiteStack({
      name: 'extract',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      adminToken: ADMIN_TOKEN,
      sites: [site],
      env: {
        // The agent runs in a browser of the pool.
        WDS_BROWSER_PROCESSES: '1',
        ...smallLocalModel(128),
        WDS_START_TIMEOUT_MS: '600000',
        WDS_SEARXNG_URL: searxng.url,
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 180_000);

  afterAll(async () => {
    await e2e?.stop();
    await searxng?.stop();
    await backend?.close();
    await site?.close();
  });

  it('JS SDK: extract() over a URL glob waits for one merged, schema-valid object with sources', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url, timeoutMs: 600_000 } as never);
    const r = await client.extract({
      urls: [`${site.url}/shop/*`],
      prompt: 'The product name and its colours.',
      schema: SCHEMA,
      showSources: true,
      timeout: 900,
      webhook: { url: `${site.url}/hooks/extract`, metadata: { from: 'js-sdk' } },
    } as never);
    expect(r).toMatchObject({ success: true, status: 'completed' });
    expect(compileSchema(SCHEMA)(r.data)).toBe(true);
    expect(Number.isInteger(r.tokensUsed)).toBe(true);
    expect(Number.isInteger(r.creditsUsed)).toBe(true);
    expect(r.creditsUsed!).toBeGreaterThanOrEqual(Math.ceil(r.tokensUsed! / 15));
    expect(typeof r.expiresAt).toBe('string');
    const found = new Set(Object.values((r as { sources: Record<string, string[]> }).sources).flat());
    expect(found.size).toBeGreaterThan(0);
    for (const u of found) expect([`${site.url}/shop/kettle`, `${site.url}/shop/mug`]).toContain(u);
    // The webhook got started, then completed with the answer the waiter returned (delivered in order).
    const extractEvents = await deliveredUntil('/hooks/extract', ['extract.completed', 'extract.failed']);
    expect(extractEvents.map((e) => e.type)).toEqual(['extract.started', 'extract.completed']);
    expect(extractEvents[1]).toMatchObject({ success: true, data: [r.data], metadata: { from: 'js-sdk' } });

    // The agent: its waiter ends on completed or failed, within maxCredits (a 135M model may not
    // find the answer: assert the job, not the answer).
    const a = await client.agent({
      prompt: 'What colour does the Blue Kettle come in? Answer with the colour.',
      urls: [`${site.url}/shop/kettle`],
      // Room for a step or two (6,000 tokens): the events and the trace below are about steps.
      maxCredits: 400,
      effort: 'low',
      timeout: 900,
      webhook: `${site.url}/hooks/agent`,
    } as never);
    expect(['completed', 'failed']).toContain(a.status);
    expect(Number.isInteger(a.creditsUsed)).toBe(true);
    expect(a.creditsUsed!).toBeLessThanOrEqual(400);
    // A bare webhook URL takes every event: one agent.action per step, between started and the end.
    const agentId = (a as { id?: string }).id!;
    const steps = (a as { steps?: { action: string }[] }).steps ?? [];
    expect(steps.length).toBeGreaterThan(0);
    const agentEvents = await deliveredUntil('/hooks/agent', ['agent.completed', 'agent.failed']);
    expect(agentEvents.map((e) => e.type)).toEqual([
      'agent.started',
      ...steps.map(() => 'agent.action'),
      `agent.${a.status}`,
    ]);
    expect(agentEvents.slice(1, -1).map((e) => (e.data as { action: string }[])[0].action)).toEqual(
      steps.map((s) => s.action),
    );
    expect(agentEvents.at(-1)!.success).toBe(a.status === 'completed');
    // The SDK's listAgents, getAgentTrace and getAgentSnapshot read the same job.
    const list = await client.listAgents();
    expect(list.success).toBe(true);
    expect(list.agents!.find((x) => x.id === agentId)).toMatchObject({
      status: a.status,
      targetHint: '127.0.0.1',
      origin: expect.stringMatching(/^js-sdk@/),
      options: { prompt: 'What colour does the Blue Kettle come in? Answer with the colour.', effort: 'low' },
    });
    const trace = await client.getAgentTrace(agentId);
    expect(trace).toMatchObject({ success: true, id: agentId, creditsUsed: a.creditsUsed });
    const kinds = trace.events!.map((e) => e.type);
    expect(kinds.filter((k) => k === 'tool_call.finished')).toHaveLength(steps.length);
    expect(kinds[0]).toBe('run.started');
    expect(trace.events!.at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: a.status === 'completed' ? 'succeeded' : expect.any(String),
    });
    if (a.status === 'completed') {
      const snapshot = await client.getAgentSnapshot(agentId, 'answer');
      expect(snapshot).toMatchObject({ success: true, snapshotId: 'answer', snapshot: a.data });
    }
    // A follow-up in chat mode continues the run's thread; getAgentThread lists both turns.
    expect(a).toMatchObject({ threadId: expect.any(String), threadTurn: 1, mode: 'extract' });
    const follow = await client.agent({
      prompt: 'In one sentence: what colour did you find?',
      threadId: a.threadId,
      mode: 'chat',
      maxCredits: 400,
      effort: 'low',
      timeout: 900,
    } as never);
    expect(follow).toMatchObject({ threadId: a.threadId, threadTurn: 2, mode: 'chat' });
    expect(follow.data).toBeUndefined();
    const thread = await client.getAgentThread(a.threadId!, { includeData: true });
    expect(thread.success).toBe(true);
    expect(thread.thread!.runs.map((r) => [r.turn, r.mode, r.prompt])).toEqual([
      [1, 'extract', 'What colour does the Blue Kettle come in? Answer with the colour.'],
      [2, 'chat', 'In one sentence: what colour did you find?'],
    ]);
    expect(thread.thread!.status).toBe('idle');
    const started = await client.startAgent({
      prompt: 'Find the price',
      urls: [`${site.url}/shop/mug`],
      webhook: { url: `${site.url}/hooks/cancel`, events: ['cancelled'] },
    } as never);
    expect(await client.cancelAgent(started.id)).toBe(true);
    expect((await client.getAgentStatus(started.id)).status).toBe('failed');
    // Only the event the webhook asked for.
    const cancelled = await deliveredUntil('/hooks/cancel', ['agent.cancelled']);
    expect(cancelled.map((e) => e.type)).toEqual(['agent.cancelled']);
    expect(cancelled[0]).toMatchObject({
      success: false,
      id: started.id,
      error: 'The agent job was cancelled',
    });
  }, 900_000);

  it('JS SDK: extract() without urls reads the pages a web search for the prompt finds; the search is billed and listed as one', async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url, timeoutMs: 600_000 } as never);
    backend.requests.length = 0;
    const searchesBefore = await fetch(`${stack.url}/v2/team/activity?endpoint=search`, {
      headers: { authorization: `Bearer ${KEY}` },
    }).then((r) => r.json() as Promise<{ data: unknown[] }>);
    const r = await client.extract({
      prompt: 'The product name and its colours.',
      schema: SCHEMA,
      showSources: true,
      timeout: 900,
    } as never);
    expect(r).toMatchObject({ success: true, status: 'completed' });
    expect(compileSchema(SCHEMA)(r.data)).toBe(true);
    // The pages read are the search's: the request named none.
    const found = new Set(Object.values((r as { sources: Record<string, string[]> }).sources).flat());
    expect(found.size).toBeGreaterThan(0);
    for (const u of found) expect([`${site.url}/shop/kettle`, `${site.url}/shop/mug`]).toContain(u);
    // SearXNG asked its engine (one search; a second page when the first had fewer results than
    // asked for), with a query written from the prompt.
    const asked = backend.requests.filter((q) => q.kind === 'web' && q.page === 1);
    expect(asked).toHaveLength(1);
    expect(asked[0].q.trim().length).toBeGreaterThan(0);
    expect(asked[0].q.length).toBeLessThanOrEqual(300);
    const searchesAfter = await fetch(`${stack.url}/v2/team/activity?endpoint=search`, {
      headers: { authorization: `Bearer ${KEY}` },
    }).then((res) => res.json() as Promise<{ data: { target: string | null }[] }>);
    expect(searchesAfter.data.length).toBe(searchesBefore.data.length + 1);
    expect(searchesAfter.data[0].target).toBe(asked[0].q);

    // An agent without urls (and no thread) starts on the web results for its prompt.
    backend.requests.length = 0;
    const started = await client.startAgent({
      prompt: 'What colour is the Red Mug?',
      effort: 'low',
    } as never);
    expect(backend.requests.filter((q) => q.kind === 'web' && q.page === 1)).toHaveLength(1);
    const listed = (await client.listAgents()).agents!.find((x) => x.id === started.id)!;
    const startUrls = (listed.options as { urls?: string[] }).urls ?? [];
    expect(startUrls.length).toBeGreaterThan(0);
    for (const u of startUrls) expect([`${site.url}/shop/kettle`, `${site.url}/shop/mug`]).toContain(u);
    expect(listed.targetHint).toBe('127.0.0.1');
    expect(await client.cancelAgent(started.id)).toBe(true);
  }, 900_000);

  it("JS SDK: getAgentTrace({liveView}) names the running agent's live view; its page and screencast open through the gateway with its token only", async () => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const client = new Firecrawl({ apiKey: KEY, apiUrl: stack.url, timeoutMs: 600_000 } as never);
    const started = await client.startAgent({
      prompt: 'Find the price of the Blue Kettle, then the price of the Red Mug, then compare them.',
      urls: [`${site.url}/shop/kettle`],
      effort: 'high',
    } as never);
    let view: { id: string; liveViewUrl: string; viewport: { width: number; height: number } } | undefined;
    for (const until = Date.now() + 300_000; !view;) {
      const trace = await client.getAgentTrace(started.id, { liveView: true });
      view = trace.activeBrowserSessions?.[0];
      if (view) break;
      const status = await client.getAgentStatus(started.id);
      if (status.status !== 'processing')
        throw new Error(`the run ended before its view was seen: ${JSON.stringify(status)}`);
      if (Date.now() > until) throw new Error('no live view within 300 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(view.id).toBe(started.id);
    expect(view.liveViewUrl).toMatch(
      new RegExp(`^${stack.url}/v2/agent/${started.id}/live/[A-Za-z0-9_-]{43}$`),
    );
    expect(view.viewport.width).toBeGreaterThan(0);
    // The page needs no API key; the token is its credential.
    const page = await fetch(view.liveViewUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/ws');
    const forged = view.liveViewUrl.replace(/[A-Za-z0-9_-]{43}$/, 'B'.repeat(43));
    expect((await fetch(forged)).status).toBe(404);
    const frame = await new Promise<{ type: string; data: string }>((resolve, reject) => {
      const ws = new WebSocket(`${view!.liveViewUrl.replace(/^http/, 'ws')}/ws`);
      const timer = setTimeout(() => reject(new Error('no frame within 60 s')), 60_000);
      ws.once('message', (m) => {
        clearTimeout(timer);
        ws.close();
        resolve(JSON.parse(String(m)));
      });
      ws.once('error', reject);
    });
    expect(frame.type).toBe('frame');
    expect(Buffer.from(frame.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(await client.cancelAgent(started.id)).toBe(true);
    // Once the run is over the trace names no view and the page is gone.
    for (const until = Date.now() + 120_000; ;) {
      const after = await client.getAgentTrace(started.id, { liveView: true });
      if (after.activeBrowserSessions?.length === 0 && (await fetch(view.liveViewUrl)).status === 404) break;
      if (Date.now() > until) throw new Error('the live view outlived its run');
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 600_000);

  it('Python SDK: extract() and get_extract_status() parse the answers (status, ints, expires_at)', async () => {
    const sdk = await pythonSdk();
    const run = await sdk.run(
      `
      import warnings
      warnings.simplefilter("ignore")
      c = client(timeout=600)
      r = c.extract(urls=[${JSON.stringify(`${site.url}/shop/kettle`)}], prompt="The product name and its colours.", schema=${JSON.stringify(SCHEMA)}, show_sources=True, timeout=900)
      s = c.get_extract_status(r.id)
      bad = None
      try:
          c.start_extract(urls=[${JSON.stringify(`${site.url}/shop/kettle`)}], schema=${JSON.stringify(SCHEMA)}, enable_web_search=True)
      except Exception as e:
          bad = type(e).__name__ + ": " + str(e)
      ws = c.extract(urls=[${JSON.stringify(`${site.url}/about`)}], prompt="The product name and its colours.", schema=${JSON.stringify(SCHEMA)}, enable_web_search=True, show_sources=True, timeout=900)
      a = c.agent(urls=[${JSON.stringify(`${site.url}/shop/mug`)}], prompt="What colour does the Red Mug come in?", max_credits=7, effort="low", timeout=900)
      started = c.start_agent(urls=[${JSON.stringify(`${site.url}/shop/kettle`)}], prompt="Find the price")
      cancelled = c.cancel_agent(started.id)
      after = c.get_agent_status(started.id)
      listed = c.list_agents()
      trace = c.get_agent_trace(started.id, live_view=True)
      thread = c.get_agent_thread(a.thread_id, include_data=True)
      emit({"id": r.id, "status": r.status, "data": r.data, "credits": r.credits_used, "tokens": r.tokens_used, "expires": str(r.expires_at), "again": s.status, "sources": r.sources, "bad": bad, "webSearch": [ws.status, ws.sources], "agent": a.status, "agentCredits": a.credits_used, "cancelled": cancelled, "after": after.status, "listed": {x.id: [x.status, x.options.prompt, x.origin] for x in listed.agents}, "trace": [e.type for e in trace.events], "traceEnd": trace.events[-1].outcome, "startedId": started.id, "thread": [thread.thread.status, [[r.turn, r.mode, r.status] for r in thread.thread.runs]], "turn": a.thread_turn})
      `,
      { apiUrl: stack.url, apiKey: KEY, timeoutMs: 900_000 },
    );
    const r = run.result as Record<string, any>;
    expect(r.status).toBe('completed');
    expect(r.again).toBe('completed');
    expect(compileSchema(SCHEMA)(r.data)).toBe(true);
    expect(Number.isInteger(r.credits)).toBe(true);
    expect(Number.isInteger(r.tokens)).toBe(true);
    expect(r.expires).toMatch(/^\d{4}-\d\d-\d\d/);
    expect(Object.values(r.sources).flat()).toContain(`${site.url}/shop/kettle`);
    expect(r.bad).toMatch(/BadRequest.*enableWebSearch needs a prompt/s);
    // enable_web_search: the page given, then the pages the search found, read as one job.
    expect(r.webSearch[0]).toBe('completed');
    for (const u of Object.values(r.webSearch[1] as Record<string, string[]>).flat())
      expect([`${site.url}/about`, `${site.url}/shop/kettle`, `${site.url}/shop/mug`]).toContain(u);
    // AgentResponse accepts only processing/completed/failed: a cancelled job parses as failed.
    expect(['completed', 'failed']).toContain(r.agent);
    expect(r.agentCredits).toBeLessThanOrEqual(7);
    expect(r.cancelled).toBe(true);
    expect(r.after).toBe('failed');
    // list_agents and get_agent_trace parse our answers (pydantic models of firecrawl-py).
    expect(r.listed[r.startedId]).toEqual(['failed', 'Find the price', expect.stringMatching(/^python-sdk/)]);
    expect(r.trace[0]).toBe('run.started');
    expect(r.trace.slice(-2)).toEqual(['run.cancel_requested', 'run.finished']);
    expect(r.traceEnd).toBe('cancelled');
    expect(r.turn).toBe(1);
    expect(r.thread).toEqual([
      'idle',
      [[1, 'extract', r.agent === 'completed' ? 'succeeded' : expect.any(String)]],
    ]);
  }, 900_000);

  it('answers unknown agent ids with 404, agent threads with 400, lists the jobs in team activity, and reads each listed id back through GET /v2/extract/{id} (another team: 403)', async () => {
    const call = async (method: string, route: string, json?: unknown, key = KEY) => {
      const res = await fetch(`${stack.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await call('POST', '/v2/agent', { prompt: 'x', threadId: 'abc' })).status).toBe(400);
    expect((await call('GET', `/v2/agent/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)).status).toBe(
      404,
    );
    const activity = await call('GET', '/v2/team/activity?endpoint=extract');
    expect(activity.status).toBe(200);
    expect(activity.body.data.length).toBeGreaterThanOrEqual(2);
    const agents = await call('GET', '/v2/team/activity?endpoint=agent');
    expect(agents.body.data.length).toBeGreaterThanOrEqual(4);

    // api-v2's activity table: extract AND agent ids are read through GET /v2/extract/{id}, by
    // their team only.
    const created = await fetch(`${stack.url}/admin/v1/teams`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `e2e-other-${randomBytes(4).toString('hex')}`, credits: 10 }),
    });
    expect(created.status).toBe(201);
    const otherKey = ((await created.json()) as { apiKey: string }).apiKey;
    const listed = [...activity.body.data, ...agents.body.data] as { id: string; endpoint: string }[];
    expect(new Set(listed.map((a) => a.endpoint))).toEqual(new Set(['extract', 'agent']));
    for (const { id, endpoint } of listed) {
      const own = await call('GET', `/v2/extract/${id}`);
      expect({ endpoint, id, status: own.status }).toEqual({ endpoint, id, status: 200 });
      expect(own.body).toMatchObject({ success: expect.any(Boolean), id });
      expect(['processing', 'completed', 'failed', 'cancelled']).toContain(own.body.status);
      const foreign = await call('GET', `/v2/extract/${id}`, undefined, otherKey);
      expect({ endpoint, id, status: foreign.status }).toEqual({ endpoint, id, status: 403 });
      expect(foreign.body.success).toBe(false);
    }
  });
});
