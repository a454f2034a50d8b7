import { randomBytes } from 'node:crypto';
import { browserSessionCredits } from '@wds/contracts';
import { AGENT_TASKS, startAgentSite, type AgentSite } from '@wds/testing';
import { callApi } from './support/http';
import { pythonSdk } from './support/python-sdk';
import { smallLocalModel, startSiteStack, type E2eStack, type StackProcess } from './support/stack-process';

// Interact by prompt (the browser agent, libs/agent) through the whole stack as `npm start` runs it,
// with its embedded llama.cpp server serving SmolLM2-135M: the loop's plumbing (step log, final
// snapshot, outcome, billing at the prompt rate, token usage), driven by both official SDKs. A 135M
// model does not solve the tasks; task success is measured by `npm run bench:llm` (and asserted
// here only when WDS_E2E_AGENT_MODEL_URL names a real provider). CPU-bound: generous timeouts.

const READY_TIMEOUT_MS = 300_000;
const KEY = `e2e-agent-${randomBytes(16).toString('hex')}`;
const ADMIN_TOKEN = `e2e-admin-${randomBytes(16).toString('hex')}`;
/** A real provider for task-success checks (OpenAI-compatible base URL); unset = SmolLM2 plumbing only. */
const PROVIDER = process.env.WDS_E2E_AGENT_MODEL_URL;

jest.setTimeout(900_000);

describe('interact by prompt through the stack (Firecrawl JS and Python SDKs)', () => {
  let e2e: E2eStack | undefined;
  let stack: StackProcess;
  let site: AgentSite;

  const call = (method: string, route: string, body?: unknown, key = KEY) =>
    callApi(stack.url, method, route, { key, body, timeoutMs: 600_000 });
  const sdk = async (apiKey = KEY) => {
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    return new Firecrawl({ apiKey, apiUrl: stack.url, timeoutMs: 600_000 });
  };
  const adminTeam = async (credits: number) => {
    const created = await callApi(stack.url, 'POST', '/admin/v1/teams', {
      key: ADMIN_TOKEN,
      body: { name: `e2e-agent-${randomBytes(4).toString('hex')}`, credits },
    });
    expect(created.status).toBe(201);
    return created.body as { teamId: string; apiKey: string };
  };
  /** LLM tokens of the team this month, as billing recorded them. */
  const llmTokens = async (key: string): Promise<number> => {
    const r = await call('GET', '/v2/team/token-usage/historical', undefined, key);
    expect(r.status).toBe(200);
    const periods = r.body.periods as { llmTokens: { total: number } }[];
    return periods.reduce((n, p) => n + p.llmTokens.total, 0);
  };
  const scrapeId = async (path: string, key = KEY): Promise<string> => {
    const r = await call('POST', '/v2/scrape', { url: `${site.url}${path}`, formats: ['markdown'] }, key);
    expect(r.status).toBe(200);
    return r.body.data.metadata.scrapeId as string;
  };

  beforeAll(async () => {
    site = await startAgentSite();
    e2e = await startSiteStack({
      name: 'agent-interact',
      readyTimeoutMs: READY_TIMEOUT_MS,
      key: KEY,
      adminToken: ADMIN_TOKEN,
      sites: [site],
      env: {
        WDS_BROWSER_PROCESSES: '1',
        ...(PROVIDER ? { WDS_LLM_BASE_URL: PROVIDER } : smallLocalModel(256)),
        WDS_START_TIMEOUT_MS: '600000',
      },
    });
    stack = e2e.stack;
  }, READY_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await e2e?.stop();
    await site?.close();
  });

  it('refuses code and prompt together, and neither, in the error envelope, changing nothing', async () => {
    const jobId = await scrapeId('/');
    for (const body of [{ code: '1', prompt: 'x' }, { language: 'node' }]) {
      const r = await call('POST', `/v2/scrape/${jobId}/interact`, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        success: false,
        error: expect.stringMatching(/Exactly one of code or prompt/),
      });
    }
    // No session was created by the refused calls.
    const stop = await call('DELETE', `/v2/scrape/${jobId}/interact`);
    expect(stop.status).toBe(404);
  });

  it('JS SDK: runs the agent in the scrape session (output, step log, final snapshot), bills 7 credits per minute and the tokens', async () => {
    const team = await adminTeam(1000);
    const client = await sdk(team.apiKey);
    const task = AGENT_TASKS[0];
    const doc = await client.scrape(`${site.url}${task.path}`, { formats: ['markdown'] });
    const jobId = doc.metadata!.scrapeId as string;
    const tokensBefore = await llmTokens(team.apiKey);

    const reply: unknown = await client.interact(jobId, { prompt: task.prompt, timeout: 240 });
    const r = reply as Record<string, unknown>;
    expect(r).toMatchObject({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      output: expect.any(String),
      stdout: expect.any(String),
      stderr: expect.any(String),
      exitCode: expect.any(Number),
      killed: expect.any(Boolean),
    });
    // The final snapshot is the page the agent saw, with element refs; the log has one line per step.
    expect(r.result).toMatch(/\[ref=(f\d+)?e\d+\]/);
    expect(String(r.result)).toContain('link "Catalogue"');
    const lines = String(r.stdout).split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(25);
    for (const l of lines)
      expect(l).toMatch(
        /^\[\d+\] (click|fill|select|press|scroll|navigate|wait|extract|finish|invalid)\b.*-> (ok|refused|error)/,
      );
    if (r.success) expect(r.exitCode).toBe(0);
    else
      expect(r).toMatchObject({
        exitCode: 1,
        error: expect.stringMatching(/step limit|ran out of time|model/),
      });
    if (PROVIDER) expect(task.check(String(r.output), site)).toBe(true);

    // Token usage: the prompt's tokens reach the team's record (billing consumes the activity stream).
    const deadline = Date.now() + 120_000;
    let tokensAfter = await llmTokens(team.apiKey);
    while (tokensAfter <= tokensBefore && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 500));
      tokensAfter = await llmTokens(team.apiKey);
    }
    expect(tokensAfter).toBeGreaterThan(tokensBefore);

    // The session ran a prompt: 7 credits per browser minute (at least one minute), not 2.
    const stopped = await client.stopInteraction(jobId);
    expect(stopped.success).toBe(true);
    expect(stopped.creditsBilled).toBe(browserSessionCredits(stopped.sessionDurationMs!, true));
    expect(stopped.creditsBilled).toBeGreaterThanOrEqual(7);
  });

  it('Python SDK: interact(job_id, prompt=...) returns the agent result or raises with the reason', async () => {
    const py = await pythonSdk();
    const jobId = await scrapeId('/archive');
    const run = await py.run(
      `
c = client(timeout=600)
try:
    r = c.interact(${JSON.stringify(jobId)}, prompt=${JSON.stringify(AGENT_TASKS[2].prompt)}, timeout=120)
    emit({"ok": True, "output": r.output, "stdout": r.stdout, "result": r.result, "exit_code": r.exit_code})
except Exception as e:
    emit({"ok": False, "error": str(e)})
`,
      { apiUrl: stack.url, apiKey: KEY, timeoutMs: 700_000 },
    );
    const out = run.result as Record<string, unknown>;
    if (out.ok) {
      expect(out).toMatchObject({ output: expect.any(String), exit_code: 0 });
      expect(String(out.result)).toMatch(/\[ref=/);
      if (PROVIDER) expect(AGENT_TASKS[2].check(String(out.output))).toBe(true);
    } else {
      // success false (step limit or time out): the SDK raises with the run's reason.
      expect(String(out.error)).toMatch(/step limit|ran out of time|model/);
    }
    const stop = await call('DELETE', `/v2/scrape/${jobId}/interact`);
    expect(stop.status).toBe(200);
    expect(stop.body.creditsBilled).toBe(browserSessionCredits(stop.body.sessionDurationMs, true));
  });

  it('a one-second prompt stops at its deadline: killed, with the reason, still billed at the prompt rate', async () => {
    const jobId = await scrapeId('/contact');
    const r = await call('POST', `/v2/scrape/${jobId}/interact`, {
      prompt: AGENT_TASKS[1].prompt,
      timeout: 1,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: false,
      killed: true,
      exitCode: 1,
      error: expect.stringMatching(/ran out of time/),
    });
    expect(r.body.output).toMatch(/ran out of time/);
    const stop = await call('DELETE', `/v2/scrape/${jobId}/interact`);
    expect(stop.body.creditsBilled).toBe(browserSessionCredits(stop.body.sessionDurationMs, true));
  });
});
