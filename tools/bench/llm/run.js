#!/usr/bin/env node
'use strict';
// `npm run bench:llm` (not in CI): quality and speed of the LLM formats with the embedded model
// (Qwen2.5-Coder-1.5B Q4_K_M on llama.cpp, started here on 127.0.0.1) or with the provider named by
// WDS_LLM_BASE_URL (+ WDS_LLM_API_KEY, WDS_LLM_MODEL). Runs the scraper's own format modules and the
// gateway's crawl-params use case over fixture pages with known answers (fixtures.js), one request
// at a time, and prints json field accuracy, question exact-match, highlights verbatim and hit rates,
// params-preview correctness, p50 latency per format and generation speed. Build first
// (npx tsc -b tsconfig.build.json). BENCH_LLM_MODEL picks another local model; BENCH_LLM_PAGES=N
// limits the pages. Then the browser agent's tasks (agent.js: success rate, steps, latency);
// BENCH_LLM_ONLY=agent, =formats (formats + branding roles) or =branding runs one section.
const fs = require('node:fs');
const path = require('node:path');
const { gzipSync } = require('node:zlib');
const { performance } = require('node:perf_hooks');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const req = (p) => require(path.join(ROOT, p));
const infra = req('libs/local-infra/dist/index.js');
const { OpenAiCompatibleLlm, llmConfigFromEnv } = req('libs/llm/dist/index.js');
const { transformHtml } = req('libs/transform/dist/index.js');
const { ScrapeRequest } = req('libs/contracts/dist/index.js');
const { JsonFormat } = req('apps/scraper/dist/scrape/formats/llm/json.format.js');
const { QuestionFormat } = req('apps/scraper/dist/scrape/formats/llm/question.format.js');
const { HighlightsFormat } = req('apps/scraper/dist/scrape/formats/llm/highlights.format.js');
const { SummaryFormat } = req('apps/scraper/dist/scrape/formats/llm/summary.format.js');
const { GenerateCrawlParamsUseCase } = req('apps/gateway/dist/crawl/crawl-params.usecase.js');
const fixtures = require('./fixtures');
const { benchAgent } = require('./agent');
const { benchBranding } = require('./branding');

const say = (s) => process.stdout.write(`${s}\n`);
const norm = (v) =>
  String(v)
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, ' ')
    .trim();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Field-level accuracy: each expected leaf compared after normalisation (numbers numerically). */
function fieldScore(expected, actual) {
  let total = 0;
  let ok = 0;
  const walk = (e, a) => {
    if (Array.isArray(e)) {
      e.forEach((item, i) => walk(item, Array.isArray(a) ? a[i] : undefined));
    } else if (e && typeof e === 'object') {
      for (const k of Object.keys(e)) walk(e[k], a && typeof a === 'object' ? a[k] : undefined);
    } else {
      total++;
      if (typeof e === 'number' ? Number(a) === e : norm(a) === norm(e)) ok++;
    }
  };
  walk(expected, actual);
  return { ok, total };
}

async function main() {
  let server;
  let config;
  const modelName = process.env.BENCH_LLM_MODEL || 'qwen2.5-coder-1.5b';
  if (process.env.WDS_LLM_BASE_URL) {
    config = llmConfigFromEnv(process.env);
    say(`provider: ${config.baseUrl} model ${config.model}`);
  } else {
    say(`starting the embedded model ${modelName} (llama.cpp, 2 threads, 1 slot, 8192 context)...`);
    const t0 = performance.now();
    server = await infra.startModelServer({
      model: modelName,
      contextTokens: 8192,
      parallel: 1,
      threads: 2,
      startTimeoutMs: 600_000,
    });
    say(
      `  up in ${((performance.now() - t0) / 1000).toFixed(1)} s, RSS ${rssMb(server.pid)} MB (log ${server.logFile})`,
    );
    config = llmConfigFromEnv({
      WDS_LLM_BASE_URL: server.baseUrl,
      WDS_LLM_MODEL: server.modelName,
      WDS_LLM_CONTEXT_TOKENS: '8192',
      WDS_LLM_TIMEOUT_MS: '600000',
      WDS_LLM_CONCURRENCY: '1',
    });
  }
  const llm = new OpenAiCompatibleLlm(config);
  const only = process.env.BENCH_LLM_ONLY;
  try {
    if (only !== 'agent' && only !== 'branding') await benchFormats(llm, config, server);
    if (only !== 'agent') await benchBranding(llm, say);
    if (only !== 'formats' && only !== 'branding') await benchAgent(llm, say);
  } finally {
    // A failing section must not leave the model server running (it holds ~2 GB).
    if (server) {
      say(`llama.cpp's own timings (log): see prompt eval / eval lines in ${server.logFile}`);
      await server.stop();
    }
  }
}

async function benchFormats(llm, config, server) {
  const pages = fixtures.slice(0, Number(process.env.BENCH_LLM_PAGES || fixtures.length));
  const lat = { json: [], question: [], highlights: [], summary: [], crawlParams: [] };
  const gen = { tokens: 0, ms: 0 };
  const fields = { ok: 0, total: 0 };
  let exact = 0;
  let verbatimLines = 0;
  let lines = 0;
  let hits = 0;
  let peakRss = server ? rssMb(server.pid) : undefined;

  const run = async (name, format, options, markdown, url) => {
    const t0 = performance.now();
    const out = await format.run({ options, markdown, url, llm, signal: AbortSignal.timeout(600_000) });
    const ms = performance.now() - t0;
    lat[name].push(ms);
    if (out.usage) {
      gen.tokens += out.usage.completionTokens;
      gen.ms += ms;
    }
    if (server) peakRss = Math.max(peakRss ?? 0, rssMb(server.pid) ?? 0);
    return out;
  };

  for (const p of pages) {
    const url = `https://example.com${p.path}`;
    const markdown = transformHtml(p.html, { url, formats: new Set(['markdown']) }).markdown;
    const options = ScrapeRequest.parse({
      url,
      formats: [
        { type: 'json', schema: p.schema },
        { type: 'question', question: p.question },
        { type: 'highlights', query: p.highlightsQuery },
        'summary',
      ],
    });
    const j = await run('json', new JsonFormat(), options, markdown, url);
    const s = fieldScore(p.expected, j.fields.json);
    fields.ok += s.ok;
    fields.total += s.total;
    const q = await run('question', new QuestionFormat(), options, markdown, url);
    const answered = norm(q.fields.answer ?? '');
    const match = answered === norm(p.answer) || answered.includes(norm(p.answer));
    if (match) exact++;
    const h = await run('highlights', new HighlightsFormat(), options, markdown, url);
    const hl = (h.fields.highlights ?? '').split('\n').filter(Boolean);
    lines += hl.length;
    verbatimLines += hl.filter((l) => markdown.includes(l)).length;
    if (hl.some((l) => l.includes(p.mustHighlight))) hits++;
    await run('summary', new SummaryFormat(), options, markdown, url);
    say(
      `  ${p.kind.padEnd(8)} ${p.path.padEnd(22)} json ${s.ok}/${s.total}  answer ${match ? 'ok ' : 'no '} ${JSON.stringify(q.fields.answer ?? null).slice(0, 40)}  highlights ${hl.length} line(s)${hl.some((l) => l.includes(p.mustHighlight)) ? ' (hit)' : ''}`,
    );
  }

  let paramsOk = 0;
  for (const c of fixtures.crawlPrompts) {
    const links = c.sample.map((pathname) => ({ url: `${c.url}${pathname}` }));
    // The crawler's map answer for the sample (this benchmark runs no crawler).
    const messaging = {
      request: async () => ({ linksGz: gzipSync(JSON.stringify(links)).toString('base64') }),
    };
    const silent = {
      info() {},
      warn() {},
      error() {},
      child() {
        return this;
      },
    };
    const uc = new GenerateCrawlParamsUseCase(messaging, llm, silent);
    const t0 = performance.now();
    const r = await uc.execute({
      teamId: 'bench',
      url: c.url,
      prompt: c.prompt,
      signal: AbortSignal.timeout(600_000),
    });
    lat.crawlParams.push(performance.now() - t0);
    const inc = (r.options.includePaths ?? []).map((x) => new RegExp(x));
    const exc = (r.options.excludePaths ?? []).map((x) => new RegExp(x));
    const crawled = (pathname) =>
      (inc.length === 0 || inc.some((re) => re.test(pathname))) && !exc.some((re) => re.test(pathname));
    const ok =
      c.mustInclude.every(crawled) &&
      c.mustExclude.every((x) => !crawled(x)) &&
      (c.limit === undefined || r.options.limit === c.limit);
    if (ok) paramsOk++;
    say(`  params   ${c.prompt.slice(0, 50).padEnd(50)} ${ok ? 'ok ' : 'no '} ${JSON.stringify(r.options)}`);
  }

  const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(0)}%` : 'n/a');
  say('');
  say(`model: ${config.model}${server ? ` (embedded, peak RSS ${peakRss} MB)` : ''}`);
  say(`json field accuracy:       ${fields.ok}/${fields.total} = ${pct(fields.ok, fields.total)}`);
  say(`question exact-match:      ${exact}/${pages.length} = ${pct(exact, pages.length)}`);
  say(
    `highlights verbatim rate:  ${verbatimLines}/${lines} lines = ${pct(verbatimLines, lines)}; expected sentence found ${hits}/${pages.length}`,
  );
  say(`params-preview correct:    ${paramsOk}/${fixtures.crawlPrompts.length}`);
  for (const [k, v] of Object.entries(lat))
    say(`p50 latency ${k.padEnd(12)} ${(median(v) / 1000).toFixed(1)} s (n=${v.length})`);
  say(
    `generated tokens / wall time of the calls: ${(gen.tokens / (gen.ms / 1000)).toFixed(1)} tokens/s (prompt processing included)`,
  );
  if (server) say(serverSpeeds(server.logFile));
}

/** llama.cpp's own per-request timings (its log): prompt processing and generation tokens/s. */
function serverSpeeds(logFile) {
  let log = '';
  try {
    log = fs.readFileSync(logFile, 'utf8');
  } catch {
    return 'llama.cpp timings: log not readable';
  }
  const rate = (re) =>
    [...log.matchAll(re)].map((m) => ({ ms: Number(m[1]), n: Number(m[2]) })).filter((x) => x.ms > 0);
  const prompt = rate(/prompt eval time =\s+([\d.]+) ms \/\s+(\d+) tokens/g);
  const eval_ = rate(/\|\s+eval time =\s+([\d.]+) ms \/\s+(\d+) tokens/g);
  const fmt = (xs, min) => {
    const per = xs.filter((x) => x.n >= min).map((x) => (x.n * 1000) / x.ms);
    const all = (xs.reduce((a, x) => a + x.n, 0) * 1000) / xs.reduce((a, x) => a + x.ms, 0);
    return `median ${median(per).toFixed(1)} tokens/s per request, ${all.toFixed(1)} overall (n=${xs.length})`;
  };
  return [
    `llama.cpp prompt processing: ${fmt(prompt, 20)}`,
    `llama.cpp generation:        ${fmt(eval_, 5)}`,
  ].join('\n');
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
