'use strict';
// Main-content benchmark: @wds/transform with onlyMainContent on every page of the Article Extraction
// Benchmark (181 news/blog pages with hand-made bodies), its markdown made plain, scored by the
// benchmark's own evaluate.py beside the peers' published outputs; plus our throughput on one core.
// Run after building the lib: npm run bench -- main-content
// Env: AEB_DIR (data folder), BENCH_RUNS (timed passes, default 5), MAIN_CONTENT_DUMP=dir (writes
// each page's plain text and a per-page score list there), BENCH_ENFORCE=1 (exit 1 below target).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { runHeldOut } = require('../../libs/transform/test/held-out/held-out');

const DATA = process.env.AEB_DIR ?? '/work/shared/data/article-extraction-benchmark';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const out = (s) => process.stdout.write(`${s}\n`);

/** Decodes page bytes with the charset the page declares (UTF-8 when none or unknown). */
function decode(buf) {
  const head = buf.subarray(0, 4096).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head);
  let label = m ? m[1].toLowerCase() : 'utf-8';
  try {
    return new TextDecoder(label).decode(buf);
  } catch {
    label = 'utf-8';
    return new TextDecoder(label).decode(buf);
  }
}

function loadPages() {
  const truth = JSON.parse(fs.readFileSync(path.join(DATA, 'ground-truth.json'), 'utf8'));
  return Object.keys(truth).map((id) => ({
    id,
    url: truth[id].url,
    expected: truth[id].articleBody ?? '',
    html: decode(zlib.gunzipSync(fs.readFileSync(path.join(DATA, 'html', `${id}.html.gz`)))),
  }));
}

function heldOut(transform) {
  const { pages, overall } = runHeldOut(transform);
  out('held-out pages (other page types, hand-marked; libs/transform/test/held-out):');
  out('| page | precision | recall |');
  out('|---|---|---|');
  for (const p of pages) out(`| ${p.file} | ${p.precision.toFixed(3)} | ${p.recall.toFixed(3)} |`);
  out(
    `| **mean** (F1 ${overall.f1.toFixed(3)}) | ${overall.precision.toFixed(3)} | ${overall.recall.toFixed(3)} |`,
  );
  out('');
}

function main() {
  heldOut(require('@wds/transform'));
  if (!fs.existsSync(path.join(DATA, 'ground-truth.json'))) {
    out(`main-content benchmark skipped: no Article Extraction Benchmark data in ${DATA} (set AEB_DIR)`);
    return;
  }
  const transform = require('@wds/transform');
  const { transformHtml, markdownToPlain, matchCounts, precision, recall, aggregate } = transform;
  const pages = loadPages();
  const formats = new Set(['markdown']);
  const run = (p) => transformHtml(p.html, { url: p.url, formats, onlyMainContent: true }).markdown ?? '';

  // Output in the benchmark's format, scored by its evaluate.py next to the published outputs.
  const output = {};
  const counts = [];
  const bodyOnly = [];
  for (const p of pages) {
    const md = run(p);
    const text = markdownToPlain(md);
    output[p.id] = { articleBody: text };
    counts.push(matchCounts(p.expected, text));
    // For reference only: the benchmark's bodies leave the headline out; we keep it (see README).
    const headless = md.startsWith('# ') ? md.slice(md.indexOf('\n') + 1 || md.length) : md;
    bodyOnly.push(matchCounts(p.expected, markdownToPlain(headless)));
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-aeb-'));
  fs.mkdirSync(path.join(work, 'output'));
  for (const f of ['evaluate.py', 'ground-truth.json']) fs.symlinkSync(path.join(DATA, f), path.join(work, f));
  for (const f of fs.readdirSync(path.join(DATA, 'output')))
    fs.symlinkSync(path.join(DATA, 'output', f), path.join(work, 'output', f));
  const gitRev = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  fs.writeFileSync(
    path.join(work, 'output', 'wds_transform.json'),
    JSON.stringify({ version: gitRev || 'local', output }),
  );

  const bytes = pages.reduce((s, p) => s + Buffer.byteLength(p.html), 0);
  out(`node ${process.version}, ${os.cpus()[0].model}; ${pages.length} pages, ${(bytes / 1048576).toFixed(1)} MB`);
  out('');
  out('> python3 evaluate.py (the benchmark scorer; wds_transform = @wds/transform onlyMainContent, plain text)');
  const py = spawnSync('python3', ['evaluate.py', '--n-bootstrap', '200', '--output', 'results.json'], {
    cwd: work,
    encoding: 'utf8',
  });
  if (py.status !== 0) {
    process.stderr.write(py.stderr);
    process.exitCode = 1;
  } else {
    process.stdout.write(py.stdout);
    const results = JSON.parse(fs.readFileSync(path.join(work, 'results.json'), 'utf8'));
    out('');
    out('| system | F1 | precision | recall |');
    out('|---|---|---|---|');
    const rows = Object.entries(results).sort((a, b) => b[1].f1 - a[1].f1);
    for (const [name, m] of rows) {
      const label = name === 'wds_transform' ? '**@wds/transform onlyMainContent**' : name;
      out(`| ${label} | ${m.f1.toFixed(3)} | ${m.precision.toFixed(3)} | ${m.recall.toFixed(3)} |`);
    }
    const ours = results.wds_transform;
    const met = ours.f1 >= 0.97 && ours.precision >= 0.95 && ours.recall >= 0.97;
    out('');
    out(`target F1 >= 0.97, precision >= 0.95, recall >= 0.97 -> ${met ? 'met' : 'NOT met'}`);
    if (process.env.BENCH_ENFORCE === '1' && !met) process.exitCode = 1;
  }
  const js = aggregate(counts);
  out(`(in-process JS scorer: F1 ${js.f1.toFixed(4)} P ${js.precision.toFixed(4)} R ${js.recall.toFixed(4)})`);
  const bo = aggregate(bodyOnly);
  out(
    `(for reference, the same output without its leading "# headline" line, which the benchmark's bodies omit: ` +
      `F1 ${bo.f1.toFixed(3)} P ${bo.precision.toFixed(3)} R ${bo.recall.toFixed(3)})`,
  );

  const dump = process.env.MAIN_CONTENT_DUMP;
  if (dump) {
    fs.mkdirSync(dump, { recursive: true });
    const lines = pages.map((p, i) => ({ id: p.id, p: precision(counts[i]), r: recall(counts[i]) }));
    lines.sort((a, b) => a.p + a.r - (b.p + b.r));
    fs.writeFileSync(
      path.join(dump, 'scores.tsv'),
      lines.map((l) => `${l.p.toFixed(3)}\t${l.r.toFixed(3)}\t${l.id}`).join('\n') + '\n',
    );
    for (const p of pages) fs.writeFileSync(path.join(dump, `${p.id}.txt`), output[p.id].articleBody);
  }
  fs.rmSync(work, { recursive: true, force: true });

  // Throughput: the same calls, timed, after a warm-up pass.
  for (const p of pages) run(p);
  const mbps = [];
  for (let r = 0; r < RUNS; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const p of pages) run(p);
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    mbps.push({ wall: bytes / 1048576 / wall, cpu: bytes / 1048576 / ((cpu.user + cpu.system) / 1e6) });
  }
  const med = (k) => mbps.map((m) => m[k]).sort((a, b) => a - b)[mbps.length >> 1];
  out('');
  out(
    `throughput, onlyMainContent markdown on these pages, one core, median of ${RUNS}: ` +
      `${med('wall').toFixed(1)} MB/s wall, ${med('cpu').toFixed(1)} MB/s CPU time ` +
      `(load average ${os.loadavg()[0].toFixed(2)}; the machine is shared, figures are noisy)`,
  );
}

main();
