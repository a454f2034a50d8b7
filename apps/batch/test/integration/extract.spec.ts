import { randomUUID } from 'node:crypto';
import { compileSchema } from '@wds/llm';
import {
  AGENT_TASKS,
  MODEL_SERVER_START_TIMEOUT_MS,
  startAgentSite,
  startTestModelServer,
  type AgentSite,
} from '@wds/testing';
import {
  buildServices,
  startBatchStack,
  type BatchStack,
  type ServiceChild,
  type Team,
} from '../support/batch-stack';

// Extract jobs end to end through the gateway: real gateway, billing, scraper (with a real
// llama.cpp server running SmolLM2-135M: plumbing, not answer quality), crawler (map, for URL
// globs) and batch processes on a private NATS and a fresh database. CPU-bound on a shared
// machine: every wait is a positive barrier with a generous deadline.

const WORKER_ENV = {
  WDS_BATCH_ACK_WAIT_MS: '5000',
  WDS_BATCH_WATCHDOG_INTERVAL_MS: '500',
  WDS_BATCH_RECONCILE_MS: '5000',
  WDS_BATCH_REDISPATCH_MS: '8000',
};
const JOB_TIMEOUT_MS = 600_000;
/** A short answer (one string): the cheapest extraction, for the tests about the job machinery. */
const TITLE = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    topics: { type: 'array', items: { type: 'string' }, maxItems: 3 },
  },
  required: ['title', 'topics'],
};

describe('extract jobs through the gateway (real services and a real model server)', () => {
  let model: Awaited<ReturnType<typeof startTestModelServer>>;
  let agentSite: AgentSite;
  let stack: BatchStack;
  let worker: ServiceChild;
  let pool: ServiceChild;
  let team: Team;
  const page = (p: string) => `${stack.site.url}${p}`;
  const start = (json: Record<string, unknown>, key = team.apiKey) =>
    stack.call('POST', '/v2/extract', { key, json });
  const read = (id: string, key = team.apiKey) => stack.call('GET', `/v2/extract/${id}`, { key });

  /** Billing's usage records of a job (endpoint and credits), once they add up to `credits`. */
  const usageOf = async (jobId: string, credits: number) => {
    const until = Date.now() + 60_000;
    for (;;) {
      const { rows } = await stack.db.query<{ endpoint: string; credits: number }>(
        'SELECT endpoint, sum(amount)::int AS credits FROM billing.usage WHERE job_id = $1 GROUP BY endpoint',
        [jobId],
      );
      const total = rows.reduce((sum, r) => sum + r.credits, 0);
      if (total === credits || Date.now() > until) return rows;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  const waitEnded = async (id: string) => {
    const until = Date.now() + JOB_TIMEOUT_MS;
    for (;;) {
      const res = await read(id);
      if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
      if (res.body.status !== 'processing') return res.body;
      if (Date.now() > until) throw new Error(`extract still running: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  /** The job's events on the events stream once one of `ending` arrived (a positive barrier). */
  const eventsUntil = async (id: string, ending: string[]) => {
    const until = Date.now() + 60_000;
    for (;;) {
      const events = stack.events.filter((e) => e.id === id);
      if (events.some((e) => ending.includes(e.type))) return events;
      if (Date.now() > until) throw new Error(`no ${ending.join('/')} event: ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    buildServices();
    model = await startTestModelServer({ contextTokens: 4096, parallel: 2 });
    agentSite = await startAgentSite();
    stack = await startBatchStack({
      allowPorts: [agentSite.port],
      env: {
        WDS_LLM_BASE_URL: model.baseUrl,
        WDS_LLM_MODEL: model.modelName,
        WDS_LLM_CONTEXT_TOKENS: '4096',
        WDS_LLM_MAX_OUTPUT_TOKENS: '128',
        WDS_LLM_TIMEOUT_MS: '600000',
      },
    });
    worker = await stack.spawnService('batch', WORKER_ENV);
    await stack.spawnService('crawler');
    pool = await stack.spawnService('browser-pool', {
      WDS_BROWSER_PROCESSES: '1',
      WDS_BROWSER_LAUNCH_STAGGER_MS: '0',
    });
    team = await stack.team();
  }, MODEL_SERVER_START_TIMEOUT_MS + 240_000);

  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
    await agentSite?.close();
  }, 60_000);

  it(
    'reads every page with the model, merges one schema-valid object, bills tokens at 15 per credit',
    async () => {
      const urls = [page('/docs/a'), page('/docs/b')];
      const res = await start({
        urls: [...urls, 'not a url'],
        prompt: 'The page title and up to three topics.',
        systemPrompt: 'Answer briefly.',
        schema: SCHEMA,
        showSources: true,
        webhook: { url: 'https://hooks.example.com/extract', metadata: { run: 7 } },
      });
      expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
      expect(res.body).toEqual({
        success: true,
        id: expect.any(String),
        urlTrace: [],
        invalidURLs: ['not a url'],
      });
      const first = await read(res.body.id);
      expect(first.status).toBe(200);
      expect(['processing', 'completed']).toContain(first.body.status);

      const done = await waitEnded(res.body.id);
      expect(done).toMatchObject({ success: true, status: 'completed', expiresAt: expect.any(String) });
      // One object valid against the schema, whatever a 135M model read.
      expect(compileSchema(SCHEMA)(done.data)).toBe(true);
      expect(Number.isInteger(done.tokensUsed)).toBe(true);
      expect(done.tokensUsed).toBeGreaterThan(0);
      // Each page costs one credit per 15 of its tokens (at least one): between the whole job's
      // tokens / 15 and that plus one per page.
      expect(Number.isInteger(done.creditsUsed)).toBe(true);
      expect(done.creditsUsed).toBeGreaterThanOrEqual(Math.ceil(done.tokensUsed / 15));
      expect(done.creditsUsed).toBeLessThanOrEqual(Math.ceil(done.tokensUsed / 15) + urls.length);
      // Charged once, under `extract`, as the job says (the balance lags while a credit block is open).
      expect(await usageOf(res.body.id, done.creditsUsed)).toEqual([
        { endpoint: 'extract', credits: done.creditsUsed },
      ]);
      // Sources: every field comes from the pages read, and the title from at least one.
      expect(done.sources.title.length).toBeGreaterThan(0);
      for (const found of Object.values(done.sources) as string[][]) {
        for (const u of found) expect(urls).toContain(u);
      }
      // Team activity lists the job as an extract.
      const activity = await stack.call('GET', '/v2/team/activity?endpoint=extract', { key: team.apiKey });
      expect(activity.status).toBe(200);
      expect(JSON.stringify(activity.body)).toContain(res.body.id);
      // Its webhook events: started, then completed with the answer the status gives (no page events).
      const events = await eventsUntil(res.body.id, ['extract.completed', 'extract.failed']);
      expect(events.map((e) => e.type)).toEqual(['extract.started', 'extract.completed']);
      expect(events[1]).toMatchObject({
        success: true,
        data: [done.data],
        teamId: team.teamId,
        metadata: { run: 7 },
        webhook: { url: 'https://hooks.example.com/extract', metadata: { run: 7 } },
      });
      expect(events[0]).toMatchObject({ success: true, data: [] });
      expect(new Set(events.map((e) => e.webhookId)).size).toBe(2);
    },
    JOB_TIMEOUT_MS + 60_000,
  );

  it(
    'expands a URL glob through map to the matching pages only',
    async () => {
      const res = await start({ urls: [page('/blog/*')], schema: TITLE, showSources: true, limit: 2 });
      expect(res.status).toBe(200);
      const done = await waitEnded(res.body.id);
      expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: undefined });
      const sourceUrls = new Set((Object.values(done.sources) as string[][]).flat());
      expect(sourceUrls.size).toBeGreaterThan(0);
      for (const u of sourceUrls) expect(u.startsWith(page('/blog/'))).toBe(true);
      const pages = await stack.db.query<{ url: string }>(
        'SELECT url FROM batch.job_pages WHERE job_id = $1',
        [res.body.id],
      );
      // `*` matches any run of characters (the empty one too: `/blog/` where the site lists it);
      // `limit` caps the pages.
      const paths = pages.rows.map((r) => new URL(r.url).pathname);
      expect(paths).toHaveLength(2);
      for (const p of paths) expect(p.startsWith('/blog/')).toBe(true);
    },
    JOB_TIMEOUT_MS + 60_000,
  );

  it(
    'fails a job whose pages all fail, with their reasons, and charges nothing for them',
    async () => {
      const res = await start({
        urls: ['http://127.0.0.1:9/unreachable'],
        prompt: 'Anything',
        webhook: 'https://hooks.example.com/failed',
      });
      expect(res.status).toBe(200);
      const done = await waitEnded(res.body.id);
      expect(done).toMatchObject({
        success: false,
        status: 'failed',
        data: [],
        creditsUsed: 0,
        tokensUsed: 0,
      });
      expect(done.error).toContain('127.0.0.1:9');
      // The job's pages completed, but without an answer: its event is `failed`, with the reason.
      const events = await eventsUntil(res.body.id, ['extract.completed', 'extract.failed']);
      expect(events.map((e) => e.type)).toEqual(['extract.started', 'extract.failed']);
      expect(events[1]).toMatchObject({ success: false, data: [], error: done.error });
    },
    JOB_TIMEOUT_MS,
  );

  it('refuses bad input with a clear 400 and starts nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ schema: { type: 'object' } }, 'Give urls (pages or globs such as https://site/*), a prompt'],
      [
        { urls: [page('/docs/a')], schema: { type: 'object' }, enableWebSearch: true },
        'enableWebSearch needs a prompt',
      ],
      [{ urls: Array.from({ length: 11 }, (_, i) => page(`/p${i}`)), prompt: 'x' }, 'urls'],
      [{ urls: [page('/docs/a')] }, 'prompt, a schema, or both'],
      [
        { urls: [page('/docs/a')], prompt: 'x', webhook: { url: 'https://h.example.com', events: ['page'] } },
        'no page events',
      ],
      [{ urls: [page('/docs/a')], prompt: 'x', webhook: 'file:///etc/passwd' }, 'webhook'],
      [{ urls: ['ftp://example.com/file'], prompt: 'x', ignoreInvalidURLs: false }, 'Invalid URL'],
      [{ urls: [page('/nothing-here/*')], prompt: 'x' }, 'matched no page'],
    ];
    const jobsBefore = await stack.db.query(
      "SELECT count(*)::int AS n FROM batch.jobs WHERE kind = 'extract'",
    );
    for (const [json, message] of cases) {
      const res = await start(json);
      expect({ json, status: res.status }).toEqual({ json, status: 400 });
      expect(res.body.success).toBe(false);
      expect(res.body.error).toContain(message);
    }
    // Without urls, or with enableWebSearch, the pages come from a web search, which this
    // deployment does not have (no WDS_SEARXNG_URL): 501 naming the setting.
    for (const json of [
      { prompt: 'The price of the kettle' },
      { urls: [page('/docs/a')], prompt: 'x', enableWebSearch: true },
    ]) {
      const res = await start(json);
      expect({ json, status: res.status }).toEqual({ json, status: 501 });
      expect(res.body).toMatchObject({ success: false, code: 'NOT_IMPLEMENTED' });
      expect(res.body.error).toContain('WDS_SEARXNG_URL');
    }
    const jobsAfter = await stack.db.query(
      "SELECT count(*)::int AS n FROM batch.jobs WHERE kind = 'extract'",
    );
    expect(jobsAfter.rows[0]).toEqual(jobsBefore.rows[0]);
  }, 120_000);

  it(
    'keeps teams and job kinds apart: 404 unknown, 403 another team, batch and extract ids distinct',
    async () => {
      expect((await read(randomUUID())).status).toBe(404);
      // Its page is refused by the network policy: the job ends at once, without the model.
      const res = await start({ urls: ['http://127.0.0.1:9/x'], schema: TITLE });
      const other = await stack.team();
      const foreign = await read(res.body.id, other.apiKey);
      expect(foreign.status).toBe(403);
      // An extract job is not a batch scrape, and a batch is not an extract.
      expect((await stack.call('GET', `/v2/batch/scrape/${res.body.id}`, { key: team.apiKey })).status).toBe(
        404,
      );
      const batch = await stack.call('POST', '/v2/batch/scrape', {
        key: team.apiKey,
        json: { urls: [page('/')] },
      });
      expect((await read(batch.body.id)).status).toBe(404);
      expect((await stack.call('GET', `/v2/agent/${res.body.id}`, { key: team.apiKey })).status).toBe(404);
      await waitEnded(res.body.id);
    },
    JOB_TIMEOUT_MS,
  );

  it(
    'loses nothing when the batch worker is killed mid-job',
    async () => {
      const res = await start({ urls: [page('/docs/b')], schema: TITLE });
      expect(res.status).toBe(200);
      // Wait until a page is in flight, then kill the worker and start another.
      const until = Date.now() + 120_000;
      for (;;) {
        const { rows } = await stack.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM batch.job_pages WHERE job_id = $1 AND status = 'dispatched'",
          [res.body.id],
        );
        if (rows[0].n > 0 || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      worker.child.kill('SIGKILL');
      await worker.exited;
      worker = await stack.spawnService('batch', WORKER_ENV);
      const done = await waitEnded(res.body.id);
      // The page was scraped and finished once despite the kill, and charged once. (Whether the
      // model answered within the page's deadline depends on the machine's load, not on the job
      // machinery: a late model makes the job `failed` with that reason.)
      const { rows } = await stack.db.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM batch.job_pages WHERE job_id = $1 GROUP BY status',
        [res.body.id],
      );
      expect(rows).toEqual([{ status: 'done', n: 1 }]);
      if (done.status !== 'completed')
        expect(done.error).toContain('did not answer before the request deadline');
      const usage = await stack.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM billing.usage WHERE job_id = $1',
        [res.body.id],
      );
      expect(usage.rows[0].n).toBe(1);
    },
    JOB_TIMEOUT_MS + 120_000,
  );

  const waitAgent = async (id: string) => {
    const until = Date.now() + JOB_TIMEOUT_MS;
    for (;;) {
      const res = await stack.call('GET', `/v2/agent/${id}`, { key: team.apiKey });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
      if (res.body.status !== 'processing') return res.body;
      if (Date.now() > until) throw new Error(`agent still running: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  type PoolRun = { status: string; steps: number; tokens: number; ms: number };
  /** The browser pool's log line for the end of the job's run. */
  const poolRun = async (id: string): Promise<PoolRun> => {
    const until = Date.now() + JOB_TIMEOUT_MS;
    for (;;) {
      const found = pool
        .output()
        .split('\n')
        .filter((l) => l.includes(id) && l.includes('agent run finished') && l.trimEnd().endsWith('}'))
        .map((l) => JSON.parse(l) as PoolRun)[0];
      if (found) return found;
      if (Date.now() > until) throw new Error(`no end of the run: ${pool.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** Billing's credits for the job, once recorded (one `agent` row). */
  const billedAgent = async (id: string): Promise<number> => {
    const until = Date.now() + 120_000;
    for (;;) {
      const { rows } = await stack.db.query<{ endpoint: string; credits: number }>(
        'SELECT endpoint, sum(amount)::int AS credits FROM billing.usage WHERE job_id = $1 GROUP BY endpoint',
        [id],
      );
      if (rows.length > 0) {
        expect(rows).toEqual([{ endpoint: 'agent', credits: expect.any(Number) }]);
        return rows[0].credits;
      }
      if (Date.now() > until) throw new Error(`nothing billed for agent job ${id}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** The agent job's status once its creditsUsed is `credits` (or the last one read after a minute). */
  const agentStatusAt = async (id: string, credits: number) => {
    const until = Date.now() + 60_000;
    for (;;) {
      const res = await stack.call('GET', `/v2/agent/${id}`, { key: team.apiKey });
      if (res.body.creditsUsed === credits || Date.now() > until) return res.body;
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  it(
    'runs an agent job in the browser pool: step log, credits within maxCredits, activity agent',
    async () => {
      const res = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: {
          prompt: AGENT_TASKS[0].prompt,
          urls: [`${agentSite.url}/`],
          maxCredits: 40,
          effort: 'low',
          webhook: { url: 'https://hooks.example.com/agent', events: ['completed', 'failed'] },
        },
      });
      expect({ status: res.status, body: res.body }).toMatchObject({ status: 200, body: { success: true } });
      const done = await waitAgent(res.body.id);
      // A 135M model may or may not find the part number: the job ends either way, within its cap.
      expect(['completed', 'failed']).toContain(done.status);
      expect(done.success).toBe(true);
      expect(Number.isInteger(done.creditsUsed)).toBe(true);
      expect(done.creditsUsed).toBeGreaterThanOrEqual(done.status === 'completed' ? 1 : 0);
      expect(done.creditsUsed).toBeLessThanOrEqual(40);
      if (done.status === 'completed') {
        expect(done.steps.length).toBeGreaterThan(0);
        expect(typeof done.data).toBe('string');
      } else {
        expect(typeof done.error).toBe('string');
      }
      expect(await usageOf(res.body.id, done.creditsUsed)).toEqual(
        done.creditsUsed > 0 ? [{ endpoint: 'agent', credits: done.creditsUsed }] : [],
      );
      // Every token the run spent is in its status, whether it answered or not.
      expect(done.tokensUsed).toBe((await poolRun(res.body.id)).tokens);
      // api-v2's activity table reads agent jobs through GET /v2/extract/{id}.
      const viaExtract = await read(res.body.id);
      expect(viaExtract.body).toMatchObject({ status: done.status, creditsUsed: done.creditsUsed });
      const activity = await stack.call('GET', '/v2/team/activity?endpoint=agent', { key: team.apiKey });
      expect(JSON.stringify(activity.body)).toContain(res.body.id);
      // Its events say what the status says: the answer with `completed`, the reason with `failed`
      // (every event is published; the webhooks service applies the webhook's filter).
      const events = await eventsUntil(res.body.id, ['agent.completed', 'agent.failed']);
      expect(events.map((e) => e.type)).toEqual(['agent.started', `agent.${done.status}`]);
      expect(events[1]).toMatchObject(
        done.status === 'completed'
          ? { success: true, data: [done.data] }
          : { success: false, data: [], error: done.error },
      );
      expect(events[1].webhook).toEqual({
        url: 'https://hooks.example.com/agent',
        events: ['completed', 'failed'],
      });
    },
    JOB_TIMEOUT_MS + 60_000,
  );

  it(
    'tells an agent job step by step: live steps in its status, an action event per step, its trace, its answer, the team list',
    async () => {
      const started = Date.now();
      const res = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: {
          prompt: AGENT_TASKS[0].prompt,
          urls: [`${agentSite.url}/`],
          // Room for a few steps of a 4,096-token context (6,000 tokens).
          maxCredits: 400,
          effort: 'low',
          model: 'spark-1-mini',
          origin: 'js-sdk@4.42.0',
          webhook: { url: 'https://hooks.example.com/steps', events: ['action', 'completed', 'failed'] },
        },
      });
      expect(res.status).toBe(200);
      const id = res.body.id as string;
      // While it runs, its status shows the steps reported so far (the first one long before the end).
      let live: unknown[] = [];
      for (const until = Date.now() + JOB_TIMEOUT_MS; live.length === 0 && Date.now() < until;) {
        const now = await stack.call('GET', `/v2/agent/${id}`, { key: team.apiKey });
        if (now.body.status !== 'processing') break;
        live = now.body.steps ?? [];
        if (live.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      const done = await waitAgent(id);
      const run = await poolRun(id);
      // Its budget pays for at least one step: the test is about steps.
      expect(run.steps).toBeGreaterThan(0);
      if (run.steps > 1) expect(live.length).toBeGreaterThan(0);
      expect(done.steps).toHaveLength(run.steps);
      if (live.length > 0) expect(done.steps.slice(0, live.length)).toEqual(live);

      // One agent.action event per step, in order, between started and the end.
      const events = await eventsUntil(id, ['agent.completed', 'agent.failed']);
      const actions = events.filter((e) => e.type === 'agent.action');
      expect(events.map((e) => e.type)).toEqual([
        'agent.started',
        ...actions.map(() => 'agent.action'),
        `agent.${done.status}`,
      ]);
      expect(actions.map((e) => (e.data[0] as { step: number }).step)).toEqual(
        Array.from({ length: run.steps }, (_, i) => i + 1),
      );
      actions.forEach((e, i) => {
        const step = e.data[0] as { action: string; outcome: string; url: string; at: number; ms: number };
        expect(step.action).toBe(done.steps[i].action);
        expect(e.success).toBe(step.outcome === 'ok');
        expect(step.at).toBeGreaterThanOrEqual(started);
        expect(typeof step.url).toBe('string');
      });
      expect(new Set(actions.map((e) => e.webhookId)).size).toBe(actions.length);

      // The trace: the job, its run, each step as a tool call, the answer, how it ended.
      const trace = await stack.call('GET', `/v2/agent/${id}/trace`, { key: team.apiKey });
      expect(trace.status).toBe(200);
      expect(trace.body).toMatchObject({ success: true, id, creditsUsed: done.creditsUsed });
      const types = (trace.body.events as { type: string }[]).map((e) => e.type);
      expect(types[0]).toBe('run.started');
      expect(types[1]).toBe('agent.started');
      expect(types.filter((t) => t === 'tool_call.started')).toHaveLength(run.steps);
      expect(types.filter((t) => t === 'tool_call.finished')).toHaveLength(run.steps);
      expect(types.at(-1)).toBe('run.finished');
      const end = trace.body.events.at(-1);
      expect(end.outcome).toEqual(done.status === 'completed' ? 'succeeded' : expect.any(String));
      expect(trace.body.events.map((e: { producerSequence: number }) => e.producerSequence)).toEqual(
        types.map((_, i) => i),
      );
      const calls = trace.body.events.filter((e: { type: string }) => e.type === 'tool_call.finished');
      expect(calls.map((c: { toolName: string }) => c.toolName)).toEqual(
        done.steps.map((s: { action: string }) => s.action),
      );
      // Read again: the same events with the same ids.
      const again = await stack.call('GET', `/v2/agent/${id}/trace?liveView=true`, { key: team.apiKey });
      expect(again.body.events).toEqual(trace.body.events);
      // No run in progress: no live view.
      expect(again.body.activeBrowserSessions).toEqual([]);
      expect(trace.body.activeBrowserSessions).toBeUndefined();

      // The answer as the artifact the trace names; nothing else is a snapshot.
      const snapshot = await stack.call('GET', `/v2/agent/${id}/snapshots/answer`, { key: team.apiKey });
      if (done.status === 'completed') {
        expect(types).toContain('artifact.updated');
        expect(snapshot).toEqual({
          status: 200,
          body: { success: true, id, snapshotId: 'answer', snapshot: done.data },
        });
      } else {
        expect(snapshot.status).toBe(404);
      }
      expect((await stack.call('GET', `/v2/agent/${id}/snapshots/other`, { key: team.apiKey })).status).toBe(
        404,
      );

      // The team's list, newest first, with what was asked; `before` pages back; other teams see none.
      const list = await stack.call('GET', '/v2/agent', { key: team.apiKey });
      expect(list.status).toBe(200);
      const mine = (list.body.agents as { id: string; createdAt: string }[]).find((a) => a.id === id);
      expect(mine).toEqual({
        id,
        createdAt: expect.any(String),
        targetHint: '127.0.0.1',
        origin: 'js-sdk@4.42.0',
        settings: { hidden: false, starred: false },
        status: done.status,
        options: {
          urls: [`${agentSite.url}/`],
          prompt: AGENT_TASKS[0].prompt,
          model: 'spark-1-mini',
          effort: 'low',
        },
      });
      const created = (list.body.agents as { createdAt: string }[]).map((a) => Date.parse(a.createdAt));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      expect(list.body.next).toBeUndefined();
      const older = await stack.call('GET', `/v2/agent?before=${Date.parse(mine!.createdAt)}`, {
        key: team.apiKey,
      });
      expect(older.status).toBe(200);
      expect((older.body.agents as { id: string }[]).map((a) => a.id)).not.toContain(id);
      expect(older.body.agents.length).toBe(list.body.agents.length - 1 - list.body.agents.indexOf(mine));
      expect((await stack.call('GET', '/v2/agent?before=soon', { key: team.apiKey })).status).toBe(400);
      const other = await stack.team();
      expect(await stack.call('GET', '/v2/agent', { key: other.apiKey })).toEqual({
        status: 200,
        body: { success: true, agents: [] },
      });
      expect([403, 404]).toContain(
        (await stack.call('GET', `/v2/agent/${id}/trace`, { key: other.apiKey })).status,
      );
      expect([403, 404]).toContain(
        (await stack.call('GET', `/v2/agent/${id}/snapshots/answer`, { key: other.apiKey })).status,
      );
      expect((await stack.call('GET', `/v2/agent/${randomUUID()}/trace`, { key: team.apiKey })).status).toBe(
        404,
      );
    },
    JOB_TIMEOUT_MS + 60_000,
  );

  it(
    'continues a thread: one run at a time, the next told the earlier turns and starting where the last ended, chat replies in message',
    async () => {
      const first = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: { prompt: AGENT_TASKS[0].prompt, urls: [`${agentSite.url}/`], maxCredits: 400, effort: 'low' },
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: true,
        id: expect.any(String),
        threadId: expect.any(String),
        threadTurn: 1,
      });
      const threadId = first.body.threadId as string;
      // One run of a thread at a time: a follow-up while the first runs is a 409 and starts nothing.
      const early = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: { prompt: 'And its price?', threadId },
      });
      expect(early.status).toBe(409);
      expect(early.body.error).toContain('still in progress');
      const one = await waitAgent(first.body.id);
      expect(one).toMatchObject({ threadId, threadTurn: 1, mode: 'extract' });
      expect(one.message).toBeUndefined();

      // The follow-up, in chat mode, without URLs.
      const second = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: {
          prompt: 'Say in one sentence what you found.',
          threadId,
          mode: 'chat',
          maxCredits: 400,
          effort: 'low',
        },
      });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ threadId, threadTurn: 2 });
      // What its run is told: the first turn's prompt and answer; where it starts: the first's last page.
      const { rows } = await stack.db.query<{ context: string; url: string }>(
        `SELECT options ->> 'context' AS context, url FROM batch.jobs WHERE id = $1`,
        [second.body.id],
      );
      expect(rows[0].context).toContain(`Turn 1. Asked: ${AGENT_TASKS[0].prompt}`);
      expect(rows[0].context).toContain(
        one.status === 'completed'
          ? `Answered: ${String(one.data).replace(/\s+/g, ' ').trim().slice(0, 100)}`
          : 'Answered: (no answer',
      );
      if (one.finalUrl?.startsWith('http')) expect(rows[0].url).toBe(one.finalUrl);
      const two = await waitAgent(second.body.id);
      expect(two).toMatchObject({ threadId, threadTurn: 2, mode: 'chat' });
      expect(two.data).toBeUndefined();
      if (two.status === 'completed') expect(typeof two.message).toBe('string');

      // The thread: both runs, oldest first, data only when asked for.
      const thread = await stack.call('GET', `/v2/agent/threads/${threadId}?includeData=true`, {
        key: team.apiKey,
      });
      expect(thread.status).toBe(200);
      expect(thread.body.thread).toMatchObject({ id: threadId, status: 'idle' });
      const runs = thread.body.thread.runs as Record<string, unknown>[];
      expect(runs.map((r) => [r.id, r.turn, r.mode])).toEqual([
        [first.body.id, 1, 'extract'],
        [second.body.id, 2, 'chat'],
      ]);
      expect(runs[0]).toMatchObject({
        prompt: AGENT_TASKS[0].prompt,
        urls: [`${agentSite.url}/`],
        effort: 'low',
        status: one.status === 'completed' ? 'succeeded' : expect.any(String),
        creditsUsed: one.creditsUsed,
        finishedAt: expect.any(String),
        message: null,
      });
      if (one.status === 'completed') expect(runs[0].data).toEqual(one.data);
      expect(runs[1]).toMatchObject({ message: two.status === 'completed' ? two.message : null });
      const plain = await stack.call('GET', `/v2/agent/threads/${threadId}`, { key: team.apiKey });
      expect((plain.body.thread.runs as Record<string, unknown>[]).every((r) => !('data' in r))).toBe(true);

      // Threads are the team's: others (and unknown ids) read 404 and cannot continue them.
      const other = await stack.team();
      expect((await stack.call('GET', `/v2/agent/threads/${threadId}`, { key: other.apiKey })).status).toBe(
        404,
      );
      const foreign = await stack.call('POST', '/v2/agent', {
        key: other.apiKey,
        json: { prompt: 'x', threadId },
      });
      expect(foreign.status).toBe(404);
      expect(
        (await stack.call('GET', `/v2/agent/threads/${randomUUID()}`, { key: team.apiKey })).status,
      ).toBe(404);
      expect((await stack.call('GET', '/v2/agent/threads/nope', { key: team.apiKey })).status).toBe(400);
      // Chat mode answers in text; zero data retention keeps no thread.
      expect(
        (
          await stack.call('POST', '/v2/agent', {
            key: team.apiKey,
            json: { prompt: 'x', mode: 'chat', schema: { type: 'object', properties: {} } },
          })
        ).status,
      ).toBe(400);
    },
    JOB_TIMEOUT_MS * 2,
  );

  it(
    'DELETE stops the agent run in flight in the browser pool within a step and bills only what it spent',
    async () => {
      const opened = agentSite.hits('/');
      // The default maxCredits (2,500): time and token budgets far beyond what runs before the cancel.
      const res = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: { prompt: AGENT_TASKS[2].prompt, urls: [`${agentSite.url}/`], effort: 'high' },
      });
      expect(res.status).toBe(200);
      const id = res.body.id as string;
      // In flight once the pool opened its start page (the model is asked right after).
      const until = Date.now() + JOB_TIMEOUT_MS;
      while (agentSite.hits('/') === opened) {
        if (Date.now() > until) throw new Error('the agent run never opened its start page');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await stack.call('DELETE', `/v2/agent/${id}`, { key: team.apiKey })).toEqual({
        status: 200,
        body: { success: true },
      });
      // The pool's run ends as cancelled, with at most the step in progress logged.
      const finished = await poolRun(id);
      expect(finished.status).toBe('cancelled');
      expect(finished.steps).toBeLessThanOrEqual(1);
      // Billed once under `agent`: the tokens it spent (15 per credit) and its browser time (7 a
      // minute, by the second), which is at most the run's whole time in the pool.
      const billed = await billedAgent(id);
      const tokenCredits = finished.tokens / 15;
      expect(billed).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(tokenCredits)));
      expect(billed).toBeLessThanOrEqual(
        Math.max(1, Math.ceil(tokenCredits + (Math.ceil(finished.ms / 1000) * 7) / 60)),
      );
      // The status counts what was billed: the run finished after its job had ended (cancelled).
      const after = await agentStatusAt(id, billed);
      expect(after).toMatchObject({
        success: true,
        status: 'failed',
        stopReason: 'cancelled',
        creditsUsed: billed,
        tokensUsed: finished.tokens,
      });
    },
    JOB_TIMEOUT_MS * 2,
  );

  it(
    'a run that ends without an answer (its token budget spent) tells the tokens and credits billed and its steps',
    async () => {
      // 6,000 tokens: room for a step or two of a 4,096-token context, not for ten (effort low).
      const maxCredits = 400;
      const res = await stack.call('POST', '/v2/agent', {
        key: team.apiKey,
        json: { prompt: AGENT_TASKS[0].prompt, urls: [`${agentSite.url}/`], maxCredits, effort: 'low' },
      });
      expect(res.status).toBe(200);
      const done = await waitAgent(res.body.id);
      const run = await poolRun(res.body.id);
      const billed = await billedAgent(res.body.id);
      expect(billed).toBeLessThanOrEqual(maxCredits);
      expect({ creditsUsed: done.creditsUsed, tokensUsed: done.tokensUsed }).toEqual({
        creditsUsed: billed,
        tokensUsed: run.tokens,
      });
      if (run.status !== 'completed') {
        // No answer (the budget spent, or on a loaded machine the deadline): the status still tells
        // the run's steps and tokens (they were lost before: only a completed run kept its record).
        expect(done).toMatchObject({ status: 'failed', stopReason: run.status });
        expect(done.steps).toHaveLength(run.steps);
      }
    },
    JOB_TIMEOUT_MS * 2,
  );

  it('cancels an agent job: its status reads failed (never cancelled), and bad agent input is a 400', async () => {
    const res = await stack.call('POST', '/v2/agent', {
      key: team.apiKey,
      json: {
        prompt: 'Find the archive code of Harbour lights',
        urls: [`${agentSite.url}/`],
        maxCredits: 7,
        webhook: 'https://hooks.example.com/cancelled',
      },
    });
    expect(res.status).toBe(200);
    const cancel = await stack.call('DELETE', `/v2/agent/${res.body.id}`, { key: team.apiKey });
    expect(cancel).toEqual({ status: 200, body: { success: true } });
    const after = await stack.call('GET', `/v2/agent/${res.body.id}`, { key: team.apiKey });
    expect(after.body).toMatchObject({ success: true, status: 'failed', stopReason: 'cancelled' });
    const events = await eventsUntil(res.body.id, ['agent.cancelled']);
    expect(events.map((e) => e.type)).toEqual(['agent.started', 'agent.cancelled']);
    expect(events[1]).toMatchObject({ success: false, data: [], error: 'The agent job was cancelled' });
    const pages = await stack.call('POST', '/v2/agent', {
      key: team.apiKey,
      json: { prompt: 'x', webhook: { url: 'https://h.example.com', events: ['page'] } },
    });
    expect(pages.status).toBe(400);
    expect(pages.body.error).toContain('started, action, completed, failed and cancelled');
    expect((await stack.call('POST', '/v2/agent', { key: team.apiKey, json: {} })).status).toBe(400);
    const threads = await stack.call('POST', '/v2/agent', {
      key: team.apiKey,
      json: { prompt: 'x', threadId: 't1' },
    });
    expect(threads.status).toBe(400);
    expect(threads.body.error).toContain('threadId');
  });
});
