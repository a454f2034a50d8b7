/** Progress of a job observed by polling, and what a fault did to it. */

export interface Sample {
  at: number;
  /** Pages done (completed, or delivered for webhooks); undefined when the poll got no answer. */
  done: number | undefined;
}

export interface ServerErrorSeen {
  at: number;
  status: number;
  retryAfter: string | null;
  body: string;
}

/** One fault's figures, as printed and recorded in docs/benchmarks.md. */
export interface PauseFigures {
  fault: string;
  /** Kill → the replacement is serving (listens). */
  backAfterMs: number;
  /** Longest time without progress from the kill to the end. */
  pauseMs: number;
  /** The replacement serving → the first progress after it (progress before it counts as 0). */
  resumedAfterBackMs: number;
  /** Kill → job finished. */
  finishedAfterMs: number;
}

/**
 * Polls `probe` every `everyMs` until `stop()`: the progress curve of a job across a fault. Polls
 * that fail (connection refused, 503 while PostgreSQL is away) are recorded as gaps.
 */
export class ProgressRecorder {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(probe: () => Promise<number | undefined>, everyMs = 100) {
    this.loop = (async () => {
      while (this.running) {
        const at = Date.now();
        let done: number | undefined;
        try {
          done = await probe();
        } catch {
          done = undefined;
        }
        this.samples.push({ at, done });
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Times at which the count went up (the first sample counts as progress). */
  progressTimes(): number[] {
    const times: number[] = [];
    let last = -1;
    for (const s of this.samples) {
      if (s.done === undefined) continue;
      if (s.done > last) {
        times.push(s.at);
        last = s.done;
      }
    }
    return times;
  }

  /** The figures of a fault injected at `killedAt` whose replacement was serving at `backAt`. */
  figures(fault: string, killedAt: number, backAt: number, finishedAt: number): PauseFigures {
    const after = this.progressTimes().filter((t) => t >= killedAt);
    const points = [killedAt, ...after, finishedAt];
    let pauseMs = 0;
    for (let i = 1; i < points.length; i++) pauseMs = Math.max(pauseMs, points[i] - points[i - 1]);
    const firstAfterBack = after.find((t) => t >= backAt) ?? finishedAt;
    return {
      fault,
      backAfterMs: backAt - killedAt,
      pauseMs,
      resumedAfterBackMs: Math.max(0, firstAfterBack - backAt),
      finishedAfterMs: finishedAt - killedAt,
    };
  }
}

export function formatFigures(rows: PauseFigures[]): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    'fault (SIGKILL)  | back after | longest pause | resumed after back | finished after kill',
    ...rows.map(
      (r) =>
        `${r.fault.padEnd(16)} | ${s(r.backAfterMs).padStart(10)} | ${s(r.pauseMs).padStart(13)} | ` +
        `${s(r.resumedAfterBackMs).padStart(18)} | ${s(r.finishedAfterMs).padStart(19)}`,
    ),
  ].join('\n');
}
