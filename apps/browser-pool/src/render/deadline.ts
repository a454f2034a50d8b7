import { ServiceError } from '@wds/contracts';

/** The time left of one render; every browser call gets at most that much. */
export class Deadline {
  constructor(
    readonly at: number,
    private readonly now: () => number = Date.now,
  ) {}

  remaining(): number {
    return this.at - this.now();
  }

  /** Milliseconds for the next step, or SCRAPE_TIMEOUT when nothing is left. */
  budget(step: string): number {
    const left = this.remaining();
    if (left <= 0) throw new ServiceError('SCRAPE_TIMEOUT', `Render timed out before ${step}`);
    return left;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}
