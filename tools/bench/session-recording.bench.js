'use strict';
// What recording a browser session costs (recordSession, and every interact session by default):
// a real Chromium (the browser-pool's flags) showing a page for BENCH_RECORDING_SECONDS (30) with
// and without the session recorder (apps/browser-pool's SessionRecorder: Chromium's screencast →
// ffmpeg → HLS files, uploaded to a directory here), on a still page and on a page that changes
// every frame. Printed per case: CPU of the browser's processes (all of them: the screencast's JPEG
// encoding happens there), of ffmpeg, and of this Node process (the recorder's frame handling,
// uploads), as a share of one core; and the bytes stored per minute. The "off" rows are what the
// page costs unrecorded; "screencast only" is the recorder without its switch to screenshots on a
// busy page (the baseline of that choice); all measured in the same run.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { CHROMIUM_ARGS, defaultChromiumPath } = require('../../apps/browser-pool/dist/pool/browser-launcher');
const {
  DEFAULT_RECORDING_SETTINGS,
  ffmpegOnPath,
  SessionRecorder,
} = require('../../apps/browser-pool/dist/sessions/session-recorder');

const SECONDS = Number(process.env.BENCH_RECORDING_SECONDS || 30);
const TICKS = 100; // USER_HZ on Linux
const say = (s) => process.stdout.write(`${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** utime + stime (seconds) of a process, or 0 once it is gone. */
function cpuOf(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** Every descendant of `root` (itself included), from /proc. */
function tree(root) {
  const parents = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      parents.set(Number(d), { ppid: Number(after[1]), comm });
    } catch {
      // gone
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, p] of parents) if (p.ppid === out[i]) out.push(pid);
  return out.map((pid) => ({ pid, comm: parents.get(pid)?.comm ?? '' }));
}

const STILL =
  '<body style="margin:0;height:100vh;background:rgb(30,90,160)"><h1 style="color:#fff">Still</h1></body>';
// A full-viewport gradient moving every frame, and a counter: the worst case for the encoder.
const MOVING = `<body style="margin:0;height:100vh;overflow:hidden">
<div id="b" style="position:absolute;inset:0;background:linear-gradient(90deg,#f00,#0f0,#00f,#f00);background-size:200% 100%"></div>
<h1 id="n" style="position:absolute;color:#fff;font:64px sans-serif"></h1>
<script>let i=0;(function f(){i++;document.getElementById('b').style.backgroundPosition=(i%200)+'% 0';document.getElementById('n').textContent=i;requestAnimationFrame(f)})()</script></body>`;

class DirSink {
  constructor(dir) {
    this.dir = dir;
    this.bytes = 0;
  }
  async putNamed(name, _metadata, data) {
    this.bytes += data.length;
    await fs.promises.writeFile(path.join(this.dir, path.basename(name)), data);
  }
  async getNamed() {
    return undefined;
  }
}

async function measure(browser, browserPid, html, record, work, screencastOnly) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  await page.setContent(html);
  await sleep(2000);
  let recorder;
  let sink;
  const recordedFrom = Date.now();
  if (record) {
    sink = new DirSink(fs.mkdtempSync(path.join(work, 'sink-')));
    recorder = new SessionRecorder(
      async () => page,
      fs.mkdtempSync(path.join(work, 'rec-')),
      {
        teamId: 'bench',
        kind: 'recording',
        sessionId: '00000000-0000-4000-8000-000000000000',
        token: 'T'.repeat(43),
      },
      sink,
      { ...DEFAULT_RECORDING_SETTINGS, ffmpeg: ffmpegOnPath(), screencastOnly },
    );
    await recorder.start();
    await sleep(1000);
  }
  const ffmpegPids = () =>
    tree(process.pid)
      .filter((p) => p.comm === 'ffmpeg')
      .map((p) => p.pid);
  const browserPids = tree(browserPid).map((p) => p.pid);
  const sum = (pids) => pids.reduce((n, pid) => n + cpuOf(pid), 0);
  const b0 = sum(browserPids);
  const f0 = sum(ffmpegPids());
  const n0 = process.cpuUsage();
  const t0 = Date.now();
  await sleep(SECONDS * 1000);
  const wall = (Date.now() - t0) / 1000;
  const b1 = sum(browserPids);
  const f1 = sum(ffmpegPids());
  const n1 = process.cpuUsage(n0);
  const capture = recorder ? recorder.capture : undefined;
  if (recorder) await recorder.stop();
  const minutes = (Date.now() - recordedFrom) / 60_000;
  await context.close();
  return {
    browser: (b1 - b0) / wall,
    ffmpeg: (f1 - f0) / wall,
    node: (n1.user + n1.system) / 1e6 / wall,
    // Everything stored (the HLS segments and playlist, and the MP4 remuxed from them at the end).
    perMinute: sink ? sink.bytes / minutes : 0,
    capture: capture ? `${capture.now} (${capture.switches} switches)` : '–',
  };
}

async function main() {
  const ffmpeg = ffmpegOnPath();
  if (!ffmpeg) throw new Error('ffmpeg is not on PATH (apt-get install ffmpeg)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-bench-recording-'));
  const browser = await chromium.launch({ executablePath: defaultChromiumPath(), args: CHROMIUM_ARGS });
  // The browser's root process: the launcher's child named like the executable.
  const root = tree(process.pid).find((p) => p.pid !== process.pid && /chrom/i.test(p.comm));
  if (!root) throw new Error('could not find the browser process');
  say(
    `node ${process.version}, ${os.cpus()[0].model}, ${os.cpus().length} cores; load at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  say(
    `recorder: ${DEFAULT_RECORDING_SETTINGS.fps} fps, ${DEFAULT_RECORDING_SETTINGS.width}x${DEFAULT_RECORDING_SETTINGS.height}, ${SECONDS} s per case, viewport 1280x720\n`,
  );
  say(
    '| page | recording | sampled by | browser processes | ffmpeg | this process (recorder) | all | stored per minute |',
  );
  say('|---|---|---|---|---|---|---|---|');
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  try {
    for (const [name, html] of [
      ['still', STILL],
      ['changing every frame', MOVING],
    ]) {
      for (const [record, screencastOnly] of [
        [false, false],
        [true, true],
        [true, false],
      ]) {
        const r = await measure(browser, root.pid, html, record, work, screencastOnly);
        const label = !record ? 'off' : screencastOnly ? 'on, screencast only (baseline)' : 'on (shipped)';
        say(
          `| ${name} | ${label} | ${r.capture} | ${pct(r.browser)} | ${record ? pct(r.ffmpeg) : '–'} | ${pct(r.node)} | ${pct(r.browser + r.ffmpeg + r.node)} | ${record ? `${(r.perMinute / 1e6).toFixed(2)} MB` : '–'} |`,
        );
      }
    }
  } finally {
    await browser.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  say(
    `\nload at end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (shares of one core; CPU time from /proc, so other load changes them little)`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
