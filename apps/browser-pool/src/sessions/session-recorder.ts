import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  playlistFiles,
  RECORDING_MP4,
  RECORDING_PLAYLIST,
  recordingObject,
  type RecordingMeta,
} from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { CDPSession, Page } from 'playwright-core';
import { sleep } from '../render/deadline';

const execFileAsync = promisify(execFile);

/** How a session is recorded. */
export interface RecordingSettings {
  /** The ffmpeg binary (Debian's `ffmpeg`). */
  ffmpeg: string;
  /** Frames per second of the video: the screen as it was at each tick. */
  fps: number;
  /** Size of the video; a frame of another shape is scaled to fit and padded (letterboxed). */
  width: number;
  height: number;
  /** Length of an HLS segment (the most a replica's death can lose, plus one upload interval). */
  segmentSeconds: number;
  /** How often finished segments and the playlist are uploaded. */
  uploadIntervalMs: number;
  /** How long stop() waits for ffmpeg to finish the last segment before it is killed. */
  stopTimeoutMs: number;
  /** Never switch a busy page to screenshots (the benchmark's baseline; see RecorderCapture). */
  screencastOnly?: boolean;
}

export const DEFAULT_RECORDING_SETTINGS: Omit<RecordingSettings, 'ffmpeg'> = {
  fps: 4,
  width: 1280,
  height: 720,
  segmentSeconds: 4,
  uploadIntervalMs: 2000,
  stopTimeoutMs: 15_000,
};

/** The ffmpeg binary on PATH, if any. */
export function ffmpegOnPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, 'ffmpeg');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Where the files of a recording go (the artifacts bucket). */
export interface RecordingSink {
  putNamed(name: string, metadata: Record<string, string>, data: Buffer): Promise<void>;
  getNamed(name: string): Promise<{ data: Buffer; metadata: Record<string, string> } | undefined>;
}

/**
 * Ends the stored playlist of a recording whose replica died while recording it (its last
 * finished segments are all there is): `#EXT-X-ENDLIST` is appended, so players treat it as a
 * complete video rather than wait for more. True when it was ended now.
 */
export async function endOrphanedRecording(sink: RecordingSink, sessionId: string): Promise<boolean> {
  const name = recordingObject(sessionId, RECORDING_PLAYLIST);
  const stored = await sink.getNamed(name);
  if (!stored) return false;
  const text = stored.data.toString('utf8');
  if (text.includes('#EXT-X-ENDLIST')) return false;
  await sink.putNamed(name, stored.metadata, Buffer.from(`${text.replace(/\n?$/, '\n')}#EXT-X-ENDLIST\n`));
  return true;
}

/** JPEG frames waiting in ffmpeg's stdin beyond this are dropped (the encoder is behind). */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

interface ScreencastFrame {
  data: string;
  sessionId: number;
}

/**
 * How the recorder samples the page. Chromium's screencast costs nothing while the page is still
 * (frames come on repaints only) but about a third of a core on a page that repaints every frame
 * (its capture runs per compositor frame, whatever the acks and `everyNthFrame`), where a
 * screenshot every 1/fps s costs about 9% (docs/benchmarks.md, "Session recordings"). So: the
 * screencast while the page is calm; more than BUSY_FRAMES_PER_FPS × fps frames in the last second,
 * and screenshots at the video's rate instead, until STILL_SECONDS of identical screenshots say the
 * page is calm again.
 */
export type RecorderCapture = 'screencast' | 'screenshots';
const BUSY_FRAMES_PER_FPS = 2;
const STILL_SECONDS = 2;

interface Shown {
  page: Page;
  cdp: CDPSession;
  capture: RecorderCapture;
  /** Arrival times of the screencast's frames in the last second. */
  recent: number[];
}

/**
 * Records what a session shows (the page opened last, as its live views do) as HLS video: the
 * page's CDP screencast (JPEG frames, through a CDP session of the replica's own; screenshots while
 * the page repaints faster than the video needs, see RecorderCapture) is sampled at
 * `fps` against the wall clock (a still page repeats its last frame, so the video's time is the
 * session's) and piped to ffmpeg, which writes H.264 MPEG-TS segments and an event playlist in a
 * directory of the session's. Every finished segment, then the playlist, is uploaded to the sink
 * as it appears, so the recording can be watched while the session runs and survives the replica;
 * stop() ends the playlist (EXT-X-ENDLIST) and uploads the rest.
 */
export class SessionRecorder {
  private ffmpeg?: ChildProcessWithoutNullStreams;
  private exited?: Promise<number | null>;
  private shown?: Shown;
  private captureSwitches = 0;
  private switching: Promise<void> = Promise.resolve();
  private latest?: Buffer;
  private startedAt = 0;
  private written = 0;
  private dropped = 0;
  private ticker?: NodeJS.Timeout;
  private uploader?: NodeJS.Timeout;
  private syncing: Promise<void> = Promise.resolve();
  private readonly uploaded = new Set<string>();
  private lastPlaylist = '';
  private stopped = false;
  private stderr = '';

  constructor(
    /** The page the session shows now. */
    private readonly page: () => Promise<Page>,
    private readonly dir: string,
    private readonly meta: RecordingMeta,
    private readonly sink: RecordingSink,
    private readonly settings: RecordingSettings,
    private readonly logger?: Logger,
  ) {}

  /** Starts ffmpeg and the screencast; the video starts with the first frame. */
  async start(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const s = this.settings;
    const fit = `scale=${s.width}:${s.height}:force_original_aspect_ratio=decrease`;
    const pad = `pad=${s.width}:${s.height}:(ow-iw)/2:(oh-ih)/2`;
    const child = spawn(
      s.ffmpeg,
      [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        // Frames go out as they come: no probing ahead of the first, no encoder lookahead (a segment
        // is written about half a second after its time is up, not seconds later).
        '-probesize',
        '32768',
        '-analyzeduration',
        '0',
        '-f',
        'image2pipe',
        '-framerate',
        String(s.fps),
        '-c:v',
        'mjpeg',
        '-i',
        'pipe:0',
        '-vf',
        `${fit},${pad},format=yuv420p`,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-tune',
        'zerolatency',
        '-crf',
        '30',
        '-threads',
        '1',
        // A key frame starts every segment, so each one plays by itself.
        '-g',
        String(s.fps * s.segmentSeconds),
        '-keyint_min',
        String(s.fps * s.segmentSeconds),
        '-sc_threshold',
        '0',
        '-f',
        'hls',
        '-hls_time',
        String(s.segmentSeconds),
        '-hls_list_size',
        '0',
        '-hls_playlist_type',
        'event',
        '-hls_segment_filename',
        path.join(this.dir, 'seg%05d.ts'),
        path.join(this.dir, RECORDING_PLAYLIST),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.ffmpeg = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', (err) => {
        this.logger?.error({ err, sessionId: this.meta.sessionId }, 'ffmpeg could not run: no recording');
        resolve(null);
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => {
      if (this.stderr.length < 4000) this.stderr += d.toString();
    });
    this.follow();
    this.ticker = setInterval(() => this.tick(), Math.max(20, Math.floor(1000 / s.fps / 2)));
    this.uploader = setInterval(() => void this.sync(), s.uploadIntervalMs);
  }

  /** The session's active page changed: the recording follows it. */
  follow(): void {
    if (this.stopped) return;
    this.switching = this.switching
      .then(() => this.show())
      .catch((err: unknown) => {
        this.logger?.warn({ err, sessionId: this.meta.sessionId }, 'recording could not follow the page');
      });
  }

  /** Ends the recording: the last frames are encoded, the playlist closed, everything uploaded. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.ticker);
    clearInterval(this.uploader);
    this.tick(true);
    // A page that hangs while it is attached must not hold the session's end.
    await Promise.race([this.switching, new Promise((r) => setTimeout(r, 5000).unref())]);
    this.detach();
    const child = this.ffmpeg;
    if (child && this.exited) {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), this.settings.stopTimeoutMs);
      const code = await this.exited;
      clearTimeout(timer);
      if (code !== 0 && this.written > 0)
        this.logger?.warn(
          { sessionId: this.meta.sessionId, code, stderr: this.stderr.slice(0, 1000) },
          'ffmpeg ended the recording with an error',
        );
    }
    await this.sync();
    await this.uploadMp4();
    if (this.dropped > 0)
      this.logger?.info(
        { sessionId: this.meta.sessionId, dropped: this.dropped },
        'recording dropped frames (encoder behind)',
      );
    await fs.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Frames written to the encoder so far (the video's length is written / fps). */
  get frames(): number {
    return this.written;
  }

  /** How the shown page is sampled now, and how often that changed (tests, benchmarks). */
  get capture(): { now: RecorderCapture | undefined; switches: number } {
    return { now: this.shown?.capture, switches: this.captureSwitches };
  }

  /**
   * Writes the frames due since the recording started: the screen as it is now, once per 1/fps
   * of wall-clock time (so a late tick writes several, and the video keeps the session's time).
   */
  private tick(final = false): void {
    const stdin = this.ffmpeg?.stdin;
    if (!this.latest || !stdin || stdin.destroyed || stdin.writableEnded) return;
    if (this.startedAt === 0) this.startedAt = Date.now();
    const due = Math.floor(((Date.now() - this.startedAt) * this.settings.fps) / 1000) + 1;
    while (this.written < due) {
      if (stdin.writableLength > MAX_PENDING_BYTES && !final) {
        this.dropped += due - this.written;
        this.written = due;
        return;
      }
      stdin.write(this.latest);
      this.written++;
    }
  }

  /**
   * Screencasts the active page through a CDP session of its own (the previous page's is detached),
   * with a screenshot first: Chromium sends frames on repaints only.
   */
  private async show(): Promise<void> {
    if (this.stopped) return;
    const page = await this.page();
    if (this.shown?.page === page) return;
    this.detach();
    const cdp = await page.context().newCDPSession(page);
    const shown: Shown = { page, cdp, capture: 'screencast', recent: [] };
    this.shown = shown;
    const interval = 1000 / this.settings.fps;
    cdp.on('Page.screencastFrame', (frame: ScreencastFrame) => {
      // Acked at the video's rate (Chromium keeps a few frames in flight, so it still sends more).
      setTimeout(() => {
        void cdp.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
      }, interval);
      if (this.shown !== shown || shown.capture !== 'screencast') return;
      this.latest = Buffer.from(frame.data, 'base64');
      const now = Date.now();
      shown.recent.push(now);
      while (shown.recent[0] <= now - 1000) shown.recent.shift();
      if (shown.recent.length > BUSY_FRAMES_PER_FPS * this.settings.fps && !this.settings.screencastOnly)
        void this.screenshots(shown);
    });
    const first = await cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: 70 });
    if (this.shown === shown) this.latest = Buffer.from(first.data, 'base64');
    await this.screencast(cdp);
  }

  private screencast(cdp: CDPSession): Promise<unknown> {
    const { width, height } = this.settings;
    return cdp.send('Page.startScreencast', {
      format: 'jpeg',
      quality: 70,
      maxWidth: width,
      maxHeight: height,
    });
  }

  /**
   * A busy page: the screencast stops and a screenshot is taken every 1/fps s instead, until the
   * screenshots have been identical for STILL_SECONDS (or one fails: the page is closing, or busy
   * navigating); then the screencast again. Ends when another page is shown or the recording stops.
   */
  private async screenshots(shown: Shown): Promise<void> {
    shown.capture = 'screenshots';
    shown.recent = [];
    this.captureSwitches++;
    const { cdp } = shown;
    await cdp.send('Page.stopScreencast').catch(() => undefined);
    const interval = 1000 / this.settings.fps;
    const stillShots = STILL_SECONDS * this.settings.fps;
    let last = '';
    let same = 0;
    while (this.shown === shown && !this.stopped && same < stillShots) {
      const t0 = Date.now();
      const shot = await cdp
        .send('Page.captureScreenshot', { format: 'jpeg', quality: 70 })
        .catch(() => undefined);
      if (!shot || this.shown !== shown) break;
      if (shot.data === last) same++;
      else {
        same = 0;
        last = shot.data;
        this.latest = Buffer.from(shot.data, 'base64');
      }
      await sleep(interval - (Date.now() - t0));
    }
    if (this.shown !== shown || this.stopped) return;
    shown.capture = 'screencast';
    this.captureSwitches++;
    await this.screencast(cdp).catch((err: unknown) =>
      this.logger?.warn({ err, sessionId: this.meta.sessionId }, 'recording could not resume the screencast'),
    );
  }

  private detach(): void {
    const shown = this.shown;
    this.shown = undefined;
    if (shown) void shown.cdp.detach().catch(() => undefined);
  }

  /**
   * The whole recording as one MP4 (the segments' H.264 copied, not encoded again; `faststart`, so
   * it plays while it downloads), uploaded beside the playlist. Only once the playlist is complete:
   * a failure leaves the HLS recording as it is (logged).
   */
  private async uploadMp4(): Promise<void> {
    const playlist = path.join(this.dir, RECORDING_PLAYLIST);
    const mp4 = path.join(this.dir, RECORDING_MP4);
    try {
      if (!(await fs.readFile(playlist, 'utf8')).includes('#EXT-X-ENDLIST')) return;
      await execFileAsync(
        this.settings.ffmpeg,
        [
          '-nostdin',
          '-hide_banner',
          '-loglevel',
          'error',
          '-i',
          playlist,
          '-c',
          'copy',
          '-movflags',
          '+faststart',
          '-y',
          mp4,
        ],
        { timeout: this.settings.stopTimeoutMs },
      );
      await this.sink.putNamed(
        recordingObject(this.meta.sessionId, RECORDING_MP4),
        { ...this.meta },
        await fs.readFile(mp4),
      );
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // nothing was recorded
      this.logger?.warn({ err, sessionId: this.meta.sessionId }, 'the MP4 of a recording could not be made');
    }
  }

  /** Uploads the segments the playlist lists that are not uploaded yet, then the playlist. */
  private sync(): Promise<void> {
    this.syncing = this.syncing
      .then(() => this.upload())
      .catch((err: unknown) => {
        this.logger?.warn({ err, sessionId: this.meta.sessionId }, 'recording upload failed (retried)');
      });
    return this.syncing;
  }

  private async upload(): Promise<void> {
    let playlist: string;
    try {
      playlist = await fs.readFile(path.join(this.dir, RECORDING_PLAYLIST), 'utf8');
    } catch {
      return; // no segment finished yet
    }
    if (playlist === this.lastPlaylist) return;
    const meta = { ...this.meta };
    for (const file of playlistFiles(playlist)) {
      if (this.uploaded.has(file)) continue;
      const data = await fs.readFile(path.join(this.dir, file));
      await this.sink.putNamed(recordingObject(this.meta.sessionId, file), meta, data);
      this.uploaded.add(file);
    }
    await this.sink.putNamed(
      recordingObject(this.meta.sessionId, RECORDING_PLAYLIST),
      meta,
      Buffer.from(playlist),
    );
    this.lastPlaylist = playlist;
  }
}
