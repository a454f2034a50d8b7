import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A media file that ffmpeg could not read (not audio/video, or damaged). */
export class MediaReadError extends Error {}

/** The ffmpeg/ffprobe binaries (Debian's `ffmpeg` package) run as child processes with a time limit. */
export class Ffmpeg {
  constructor(
    private readonly bin = { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' },
    /** Largest MP3 produced (bytes): a long track is refused rather than filling the store. */
    private readonly maxOutputBytes = 200 * 1024 * 1024,
  ) {}

  /** Stream kinds in the file (`audio`, `video`...). */
  async streams(file: Buffer, timeoutMs: number): Promise<string[]> {
    return this.withFile(file, async (input) => {
      const out = await run(
        this.bin.ffprobe,
        ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'json', input],
        timeoutMs,
      );
      const parsed = JSON.parse(out.stdout || '{}') as { streams?: { codec_type?: string }[] };
      return (parsed.streams ?? []).map((s) => s.codec_type ?? '').filter(Boolean);
    });
  }

  /** The file's first audio track as MP3 (VBR ~165 kbit/s). */
  async toMp3(file: Buffer, timeoutMs: number): Promise<Buffer> {
    return this.withFile(file, async (input, dir) => {
      const output = path.join(dir, 'out.mp3');
      await run(
        this.bin.ffmpeg,
        [
          '-nostdin',
          '-hide_banner',
          '-loglevel',
          'error',
          '-i',
          input,
          '-map',
          '0:a:0',
          '-vn',
          '-codec:a',
          'libmp3lame',
          '-q:a',
          '4',
          '-fs',
          String(this.maxOutputBytes),
          '-f',
          'mp3',
          output,
        ],
        timeoutMs,
      );
      return readFile(output);
    });
  }

  private async withFile<T>(file: Buffer, fn: (input: string, dir: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(tmpdir(), 'wds-media-'));
    try {
      const input = path.join(dir, 'input');
      await writeFile(input, file);
      return await fn(input, dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

function run(bin: string, args: string[], timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { timeout: Math.max(1, timeoutMs), killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        if (e.code === 'ENOENT') return reject(new Error(`${bin} is not installed (Debian package ffmpeg)`));
        if (e.killed)
          return reject(new MediaReadError(`${path.basename(bin)} took longer than ${timeoutMs} ms`));
        reject(new MediaReadError(stderr.trim().split('\n').slice(-1)[0] || e.message));
      },
    );
  });
}
