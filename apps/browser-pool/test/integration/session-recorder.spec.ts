import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BROWSER_SESSION_RPC, recordingObject, ServiceError } from '@wds/contracts';
import { videoCentreColours } from '@wds/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { defaultChromiumPath } from '../../src/pool/browser-launcher';
import { startBrowserPool, type PoolHarness } from '../support/pool-harness';
import {
  DEFAULT_RECORDING_SETTINGS,
  endOrphanedRecording,
  ffmpegOnPath,
  SessionRecorder,
  type RecordingSink,
} from '../../src/sessions/session-recorder';

// The session recorder on a real Chromium and a real ffmpeg: it follows the page the session shows
// (as a new tab opens and closes), uploads finished segments while it records, retries an upload
// that failed, and leaves a playlist whose video decodes to what was shown, in order.

jest.setTimeout(120_000);

const SESSION = '0b6a3c55-5f1e-4a8e-9d1a-0c2f9a1b7e11';
const TOKEN = 'T'.repeat(43);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A sink writing into a directory; its first `failures` puts throw (the store was unreachable). */
class DirSink implements RecordingSink {
  readonly puts: string[] = [];
  constructor(
    readonly dir: string,
    private failures = 0,
  ) {}
  async getNamed(name: string): Promise<{ data: Buffer; metadata: Record<string, string> } | undefined> {
    const file = path.join(this.dir, path.basename(name));
    const data = await fs.readFile(file).catch(() => undefined);
    return data ? { data, metadata: this.metadata[name] ?? {} } : undefined;
  }
  private readonly metadata: Record<string, Record<string, string>> = {};
  async putNamed(name: string, metadata: Record<string, string>, data: Buffer): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('store unreachable');
    }
    expect(metadata).toEqual({ teamId: 'team-a', kind: 'recording', sessionId: SESSION, token: TOKEN });
    this.puts.push(name);
    this.metadata[name] = metadata;
    await fs.writeFile(path.join(this.dir, path.basename(name)), data);
  }
}

describe('session recorder (real Chromium, real ffmpeg)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let work: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: defaultChromiumPath() });
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'wds-recorder-'));
  });
  afterEach(async () => {
    await context?.close();
    await fs.rm(work, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const colourPage = async (colour: string): Promise<Page> => {
    const page = await context.newPage();
    await page.setContent(`<body style="margin:0;height:100vh;background:${colour}"></body>`);
    return page;
  };

  it('finds ffmpeg on PATH, and nothing on a PATH without it', () => {
    expect(ffmpegOnPath()).toMatch(/\/ffmpeg$/);
    expect(ffmpegOnPath({ PATH: work })).toBeUndefined();
  });

  it('follows the page shown (a tab opened, then closed), uploads while recording and retries a failed upload', async () => {
    const red = await colourPage('rgb(220,0,0)');
    let shown: Page = red;
    const sinkDir = path.join(work, 'sink');
    await fs.mkdir(sinkDir);
    const sink = new DirSink(sinkDir, 1);
    const recorder = new SessionRecorder(
      async () => (shown.isClosed() ? red : shown),
      path.join(work, 'rec'),
      { teamId: 'team-a', kind: 'recording', sessionId: SESSION, token: TOKEN },
      sink,
      { ...DEFAULT_RECORDING_SETTINGS, ffmpeg: ffmpegOnPath()!, segmentSeconds: 2, uploadIntervalMs: 500 },
    );
    await recorder.start();
    await sleep(3000);
    shown = await colourPage('rgb(0,170,0)');
    recorder.follow();
    await sleep(3000);
    // While recording: segments and the playlist are in the sink already (after one failed put).
    expect(sink.puts).toContain(recordingObject(SESSION, 'seg00000.ts'));
    expect(sink.puts).toContain(recordingObject(SESSION, 'index.m3u8'));
    await shown.close();
    recorder.follow();
    await sleep(3000);
    await recorder.stop();

    const playlist = await fs.readFile(path.join(sinkDir, 'index.m3u8'), 'utf8');
    expect(playlist).toContain('#EXT-X-ENDLIST');
    for (const seg of playlist.split('\n').filter((l) => l.endsWith('.ts')))
      expect((await fs.stat(path.join(sinkDir, seg))).size).toBeGreaterThan(0);
    const seen = await videoCentreColours(path.join(sinkDir, 'index.m3u8'));
    // The MP4 made at the end is the same video.
    expect(sink.puts.at(-1)).toBe(recordingObject(SESSION, 'recording.mp4'));
    expect(await videoCentreColours(path.join(sinkDir, 'recording.mp4'))).toBe(seen);
    expect({ seen, runs: seen.replace(/\?/g, '').replace(/(.)\1*/g, '$1') }).toEqual({ seen, runs: 'RGR' });
    expect(recorder.frames / DEFAULT_RECORDING_SETTINGS.fps).toBeGreaterThan(8);
    // Its working directory is gone.
    await expect(fs.stat(path.join(work, 'rec'))).rejects.toThrow();
  });

  it('samples a page that repaints every frame by screenshots, and by the screencast again once it is still; the video shows both', async () => {
    const page = await context.newPage();
    await page.setContent(`<body style="margin:0;height:100vh;background:rgb(220,0,0)">
      <div id="n" style="font:40px sans-serif"></div>
      <script>window.busy = true; let i = 0;
        (function f() { if (!window.busy) return; document.getElementById('n').textContent = i++; requestAnimationFrame(f); })();
      </script></body>`);
    const sinkDir = path.join(work, 'sink');
    await fs.mkdir(sinkDir);
    const recorder = new SessionRecorder(
      async () => page,
      path.join(work, 'rec'),
      { teamId: 'team-a', kind: 'recording', sessionId: SESSION, token: TOKEN },
      new DirSink(sinkDir),
      { ...DEFAULT_RECORDING_SETTINGS, ffmpeg: ffmpegOnPath()!, segmentSeconds: 2, uploadIntervalMs: 500 },
    );
    const until = async (what: () => boolean, ms: number) => {
      for (const end = Date.now() + ms; !what() && Date.now() < end;) await sleep(100);
      return what();
    };
    await recorder.start();
    expect(await until(() => recorder.capture.now === 'screenshots', 5000)).toBe(true);
    // While it is sampled by screenshots the video follows the page.
    await sleep(1500);
    await page.evaluate(() => (document.body.style.background = 'rgb(0,0,220)'));
    await sleep(2500);
    await page.evaluate(() => ((window as unknown as { busy: boolean }).busy = false));
    // Still for two seconds of screenshots: the screencast again.
    expect(await until(() => recorder.capture.now === 'screencast', 8000)).toBe(true);
    expect(recorder.capture.switches).toBe(2);
    await page.evaluate(() => (document.body.style.background = 'rgb(0,170,0)'));
    await sleep(2000);
    await recorder.stop();
    const seen = await videoCentreColours(path.join(sinkDir, 'index.m3u8'));
    expect({ seen, runs: seen.replace(/\?/g, '').replace(/(.)\1*/g, '$1') }).toEqual({ seen, runs: 'RBG' });
  });

  it('ends the playlist of a recording whose replica died (once), keeping its metadata; nothing else', async () => {
    const sink = new DirSink(work);
    const meta = { teamId: 'team-a', kind: 'recording', sessionId: SESSION, token: TOKEN };
    const name = recordingObject(SESSION, 'index.m3u8');
    expect(await endOrphanedRecording(sink, SESSION)).toBe(false); // none stored
    const live = '#EXTM3U\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:4.000000,\nseg00000.ts\n';
    await sink.putNamed(name, meta, Buffer.from(live));
    expect(await endOrphanedRecording(sink, SESSION)).toBe(true);
    expect(await endOrphanedRecording(sink, SESSION)).toBe(false);
    const ended = await sink.getNamed(name);
    expect(ended?.data.toString()).toBe(`${live}#EXT-X-ENDLIST\n`);
    expect(ended?.metadata).toEqual(meta);
  });

  it('an ffmpeg that cannot run: recording fails quietly, stop() leaves nothing and does not hang', async () => {
    const page = await colourPage('rgb(0,0,220)');
    const sink = new DirSink(work);
    const recorder = new SessionRecorder(
      async () => page,
      path.join(work, 'rec'),
      { teamId: 'team-a', kind: 'recording', sessionId: SESSION, token: TOKEN },
      sink,
      { ...DEFAULT_RECORDING_SETTINGS, ffmpeg: '/nonexistent/ffmpeg' },
    );
    await recorder.start();
    await sleep(500);
    await recorder.stop();
    expect(sink.puts).toEqual([]);
  });
});

describe('recordSession where recordings cannot be kept (the real service, artifacts store off)', () => {
  let pool: PoolHarness;

  beforeAll(async () => {
    pool = await startBrowserPool({ WDS_ARTIFACTS_STORE: 'false', WDS_SESSION_WARM_BROWSERS: '0' });
  }, 120_000);
  afterAll(async () => {
    await pool?.stop();
  });

  it('answers NOT_IMPLEMENTED naming why, before anything of a session is made', async () => {
    const err = await pool.client
      .request(
        BROWSER_SESSION_RPC.create,
        { teamId: 'team-a', ttl: 60, activityTtl: 60, maxSessions: 5, recordSession: true },
        { timeoutMs: 30_000 },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'NOT_IMPLEMENTED' });
    expect((err as Error).message).toMatch(/artifacts store \(WDS_ARTIFACTS_STORE=false\)/);
    const { sessions } = await pool.client.request(BROWSER_SESSION_RPC.list, { teamId: 'team-a' });
    expect(sessions).toEqual([]);
  });
});
