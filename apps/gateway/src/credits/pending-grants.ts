import { Injectable } from '@nestjs/common';

/** How long a request of a team whose creation credits are on their way waits for them. */
export const PENDING_GRANT_WAIT_MS = 10_000;

interface PendingGrant {
  done: Promise<void>;
  /** Tries the grant now instead of at the next scheduled retry. */
  nudge: () => void;
}

/**
 * Credit grants this gateway has promised but billing has not confirmed yet: the bootstrap team's
 * creation credits, retried in the background while billing is starting. A request of such a team
 * that finds its balance short waits for the grant (bounded by `PENDING_GRANT_WAIT_MS`) instead of
 * answering 402 in the seconds after a fresh install, when the gateway is ready before billing.
 */
@Injectable()
export class PendingCreditGrants {
  private readonly pending = new Map<string, PendingGrant>();
  /** Upper bound of one request's wait. */
  waitMs = PENDING_GRANT_WAIT_MS;

  track(teamId: string, grant: PendingGrant): void {
    this.pending.set(teamId, grant);
    void grant.done.finally(() => {
      if (this.pending.get(teamId) === grant) this.pending.delete(teamId);
    });
  }

  /**
   * Waits for the team's pending grant (nudging it to try now); false at once when none is
   * pending, so the caller's 402 stands.
   */
  async settle(teamId: string, timeoutMs = this.waitMs): Promise<boolean> {
    const grant = this.pending.get(teamId);
    if (!grant) return false;
    grant.nudge();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([grant.done, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    return true;
  }
}
