import type { Messaging } from '@wds/messaging';
import type { Logger } from '@wds/observability';
import { z } from 'zod';
import type { JobEvents } from './job-events';
import type { JobStore } from './job-store';
import type { PageDispatcher } from './page-dispatcher';
import type { TeamWaker, WakeTarget } from './team-gate';

/**
 * Core NATS (no persistence): a lost wake-up only delays a job until its service's watchdog
 * polls the waiting jobs. `<kind>` is the job kind; one replica of the kind's queue group claims.
 * NEVER rename a shipped subject: bump the version and run both until old replicas are gone.
 */
export const TEAM_WAKE_SUBJECT = 'wds.jobs.v1.team-wake';

const WakeMessage = z.object({ jobIds: z.array(z.uuid()).min(1).max(1000) });

type Subscription = ReturnType<Messaging['nc']['subscribe']>;

/** What a job service needs to claim and publish a woken job's pages. */
export interface WakeHandlerDeps {
  store: JobStore;
  dispatcher: PageDispatcher;
  events: JobEvents;
}

/**
 * Wakes page jobs of a team when slots of the team's limit free up elsewhere (another job's page
 * finished, a job ended), whichever service runs them, and serves the wake-ups of one job kind:
 * the woken job claims what the team now allows and publishes those page tasks.
 */
export class TeamWake implements TeamWaker {
  private readonly subs: Subscription[] = [];
  /** Job ids being claimed in this process → whether another wake arrived meanwhile. */
  private readonly claiming = new Map<string, boolean>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly messaging: Messaging,
    private readonly logger: Logger,
  ) {}

  wake(targets: readonly WakeTarget[]): void {
    const byKind = new Map<string, string[]>();
    for (const t of targets) byKind.set(t.kind, [...(byKind.get(t.kind) ?? []), t.jobId]);
    for (const [kind, jobIds] of byKind) {
      try {
        this.messaging.nc.publish(`${TEAM_WAKE_SUBJECT}.${kind}`, JSON.stringify({ jobIds }));
      } catch (err) {
        this.logger.warn({ err, kind }, 'could not publish a team wake-up; the watchdog will poll');
      }
    }
  }

  /** Claims for woken jobs of `kind`; wake-ups for a job already being claimed coalesce. */
  serve(kind: string, deps: WakeHandlerDeps): void {
    const sub = this.messaging.nc.subscribe(`${TEAM_WAKE_SUBJECT}.${kind}`, {
      queue: `jobs-team-wake-${kind}`,
      callback: (err, msg) => {
        if (err) {
          this.logger.error({ err }, 'team wake subscription failed');
          return;
        }
        const parsed = WakeMessage.safeParse(safeJson(msg.data));
        if (!parsed.success) {
          this.logger.warn({ subject: msg.subject }, 'ignoring a malformed team wake-up');
          return;
        }
        for (const jobId of parsed.data.jobIds) this.trigger(jobId, deps);
      },
    });
    this.subs.push(sub);
  }

  /** Stops listening and waits for claims in progress. */
  async stop(): Promise<void> {
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
    await Promise.all([...this.running]);
  }

  private trigger(jobId: string, deps: WakeHandlerDeps): void {
    if (this.claiming.has(jobId)) {
      this.claiming.set(jobId, true);
      return;
    }
    this.claiming.set(jobId, false);
    const run = (async () => {
      do {
        this.claiming.set(jobId, false);
        await claimAndPublish(deps, jobId).catch((err: unknown) =>
          this.logger.warn({ err, jobId }, 'claim after a team wake-up failed; the watchdog will retry'),
        );
      } while (this.claiming.get(jobId));
      this.claiming.delete(jobId);
    })();
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }
}

/** Claims what the job may dispatch now and publishes it (also the watchdog's poll of waiting jobs). */
export async function claimAndPublish(deps: WakeHandlerDeps, jobId: string): Promise<void> {
  const outcome = await deps.store.claim(jobId);
  await deps.dispatcher.publish(outcome.dispatch);
  if (outcome.finished && outcome.job) await deps.events.lifecycle(outcome.job, 'completed');
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return undefined;
  }
}
