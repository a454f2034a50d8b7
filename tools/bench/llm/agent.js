'use strict';
// The agent section of `npm run bench:llm`: the browser agent (libs/agent) on the checkable tasks
// of libs/testing's agent site (a value behind two clicks, a form to fill and submit, a listing to
// page through), in a real Chromium page on 127.0.0.1, one task at a time with the given LLM port.
// Prints per task: success (the answer checked against the site's facts), steps, wall time, tokens;
// then the success rate and medians. BENCH_AGENT_MAX_STEPS (default 25) and BENCH_AGENT_TASK_S
// (default 600) bound each task; BENCH_AGENT_TASKS=name,name runs some of them.
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const req = (p) => require(path.join(ROOT, p));

async function benchAgent(llm, say) {
  const { chromium } = require('playwright-core');
  const { runAgent, PageAgentBrowser } = req('libs/agent/dist/index.js');
  const { startAgentSite, AGENT_TASKS } = req('libs/testing/dist/agent-site.js');
  const { defaultChromiumPath } = req('apps/browser-pool/dist/pool/browser-launcher.js');
  const maxSteps = Number(process.env.BENCH_AGENT_MAX_STEPS || 25);
  const taskMs = Number(process.env.BENCH_AGENT_TASK_S || 600) * 1000;
  const only = (process.env.BENCH_AGENT_TASKS || '').split(',').filter(Boolean);
  const tasks = only.length ? AGENT_TASKS.filter((t) => only.includes(t.name)) : AGENT_TASKS;
  const site = await startAgentSite();
  const browser = await chromium.launch({ executablePath: defaultChromiumPath() });
  const rows = [];
  // Every model call's latency (a step = one call + its page work), for the p50.
  const calls = [];
  let seen = [];
  const timed = Object.create(llm);
  timed.structured = async (r) => {
    const t = performance.now();
    try {
      const out = await llm.structured(r);
      if (out.value && typeof out.value.seen === 'string') seen.push(out.value.seen);
      return out;
    } finally {
      calls.push(performance.now() - t);
    }
  };
  const stepMs = [];
  say('');
  say(`agent: ${tasks.length} tasks, at most ${maxSteps} steps and ${taskMs / 1000} s each`);
  try {
    for (const task of tasks) {
      seen = [];
      const context = await browser.newContext();
      const page = await context.newPage();
      const t0 = performance.now();
      const r = await runAgent({
        llm: timed,
        browser: new PageAgentBrowser(page),
        task: task.prompt,
        maxSteps,
        deadline: Date.now() + taskMs,
        policy: { allowedDomains: ['127.0.0.1'] },
        startUrls: [`${site.url}${task.path}`],
      });
      const ms = performance.now() - t0;
      if (r.steps.length) stepMs.push(...r.steps.map(() => ms / r.steps.length));
      await context.close();
      const ok = r.status === 'completed' && task.check(r.output, site);
      rows.push({ ok, steps: r.steps.length, ms, tokens: r.usage.totalTokens });
      say(
        `  ${task.name.padEnd(10)} ${ok ? 'success' : 'failure'}  ${r.status.padEnd(9)} ${String(r.steps.length).padStart(2)} steps  ${(ms / 1000).toFixed(1)} s  ${r.usage.totalTokens} tokens  answer ${JSON.stringify(r.output).slice(0, 80)}`,
      );
      say(`      seen notes: ${JSON.stringify(seen.map((x) => x.slice(0, 40)))}`);
      for (const s of r.steps)
        say(
          `      [${s.step}] ${s.action} ${s.target ?? ''} -> ${s.outcome}${s.detail ? `: ${s.detail.slice(0, 80)}` : ''}`,
        );
    }
  } finally {
    await browser.close();
    await site.close();
  }
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
  };
  const done = rows.filter((r) => r.ok).length;
  say(`agent task success:        ${done}/${rows.length}`);
  say(`agent steps per task:      median ${med(rows.map((r) => r.steps))}`);
  say(`agent wall time per task:  median ${(med(rows.map((r) => r.ms)) / 1000).toFixed(1)} s`);
  const steps = rows.reduce((n, r) => n + r.steps, 0);
  const ms = rows.reduce((n, r) => n + r.ms, 0);
  say(
    `agent time per step:       ${steps ? (ms / steps / 1000).toFixed(1) : 'n/a'} s (model call + page work)`,
  );
  say(`agent model call latency:  p50 ${(med(calls) / 1000).toFixed(1)} s over ${calls.length} calls`);
  say(`agent step latency:        p50 ${(med(stepMs) / 1000).toFixed(1)} s (per task: wall time / steps)`);
  return rows;
}

module.exports = { benchAgent };
