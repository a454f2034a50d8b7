'use strict';
// How many CPU threads the local llama.cpp server should compute with when it shares the machine
// (`npm start` runs it beside Chromium and the services; the test suites run it beside other
// suites). llama.cpp splits every matrix operation of a token across its threads and waits at a
// barrier for all of them; when another process holds one of the cores, the barrier waits for the
// scheduler, hundreds of times per token. Measured here: the same chat completion (a ~600-token
// prompt, BENCH_MODEL_TOKENS (200) generated, temperature 0) on the catalogue model BENCH_MODEL
// (smollm2-135m) with 1 thread and with every core, while 0, <cores> and 2.5×<cores> busy processes
// compete (BENCH_MODEL_LOADS, e.g. "0,2", picks other counts). Printed: generated and prompt tokens/s
// and the wall time of BENCH_MODEL_ROUNDS (2) completions.
const os = require('node:os');
const { spawn } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');
const { startModelServer, defaultModelThreads } = require('../../libs/local-infra/dist');

const MODEL = process.env.BENCH_MODEL || 'smollm2-135m';
const TOKENS = Number(process.env.BENCH_MODEL_TOKENS || 200);
const ROUNDS = Number(process.env.BENCH_MODEL_ROUNDS || 2);
const say = (s) => process.stdout.write(`${s}\n`);

const cores = os.availableParallelism();
const prompt = `Summarise this document in detail.\n\n${fs
  .readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8')
  .slice(0, 2400)}`;

/** `n` processes that spin until killed (the competing load). */
function busy(n) {
  const code = 'for(;;){}';
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
}

async function complete(baseUrl, modelName) {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: modelName,
      max_tokens: TOKENS,
      temperature: 0,
      // Different every round: no prompt cache between rounds.
      messages: [{ role: 'user', content: `${Math.random()}\n${prompt}` }],
    }),
  });
  if (!res.ok) throw new Error(`completion answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function measure(threads, load) {
  const server = await startModelServer({ model: MODEL, contextTokens: 4096, parallel: 1, threads });
  const hogs = busy(load);
  try {
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    let generated = 0;
    let generating = 0;
    let read = 0;
    let reading = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const answer = await complete(server.baseUrl, server.modelName);
      generated += answer.usage.completion_tokens;
      generating += answer.usage.completion_tokens / (answer.timings?.predicted_per_second || Infinity);
      read += answer.timings?.prompt_n ?? 0;
      reading += (answer.timings?.prompt_ms ?? 0) / 1000;
    }
    return {
      wall: (Date.now() - started) / 1000,
      tokensPerSecond: generated / generating,
      promptPerSecond: reading ? read / reading : NaN,
    };
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
    await server.stop();
  }
}

async function main() {
  const loads = process.env.BENCH_MODEL_LOADS
    ? process.env.BENCH_MODEL_LOADS.split(',').map(Number)
    : [0, cores, Math.round(cores * 2.5)];
  const threadCounts = [...new Set([1, cores])];
  say(`${MODEL}, ${cores} cores, ${ROUNDS} completions of ${TOKENS} tokens per case`);
  say(`default threads for a shared machine (defaultModelThreads): ${defaultModelThreads()}`);
  say('busy processes | threads | generated tokens/s | prompt tokens/s | wall (s)');
  for (const load of loads) {
    for (const threads of threadCounts) {
      const r = await measure(threads, load);
      say(
        `${String(load).padStart(14)} | ${String(threads).padStart(7)} | ${r.tokensPerSecond
          .toFixed(1)
          .padStart(18)} | ${r.promptPerSecond.toFixed(0).padStart(15)} | ${r.wall.toFixed(1).padStart(8)}`,
      );
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
