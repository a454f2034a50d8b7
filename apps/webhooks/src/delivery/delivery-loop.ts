import type { Logger } from '@wds/observability';
import type { AttemptDeliveryUseCase } from './attempt-delivery.usecase';
import type { DeliveryStore } from './delivery-store';

export interface LoopSettings {
  /** Attempts in flight in this replica at most. */
  concurrency: number;
  /** Attempts in flight to one destination (scheme://host:port) across all replicas at most. */
  perDestination: number;
  /** How often due deliveries are looked for when nothing wakes the loop earlier. */
  pollIntervalMs: number;
  /** How long a claimed delivery stays with this replica; longer than an attempt can take. */
  leaseMs: number;
  instance: string;
}

/**
 * Works off the outbox: claims due deliveries (every replica runs one; the claim is
 * `FOR UPDATE SKIP LOCKED`, so replicas never attempt the same delivery at once), runs their attempts
 * concurrently within the caps, and claims again when an attempt ends, a new event is recorded, or
 * the poll interval passes.
 */
export class DeliveryLoop {
  private readonly inflight = new Set<Promise<void>>();
  /** Start time (ms) of each attempt in flight, and how many run per destination. */
  private readonly started = new Map<Promise<void>, number>();
  private readonly perDestination = new Map<string, number>();
  private running = false;
  private claiming: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: DeliveryStore,
    private readonly attempt: AttemptDeliveryUseCase,
    private readonly settings: LoopSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.running = true;
    this.wake();
  }

  /** Look for due deliveries now (new event recorded, attempt finished). */
  wake(): void {
    if (!this.running) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claimLoop().finally(() => {
      this.claiming = undefined;
      // A wake-up that came while the last claim was running must not wait for the next poll.
      if (this.again && this.running) this.wake();
      else this.arm();
    });
  }

  /** Stops claiming and waits for the attempts in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.claiming;
    await Promise.all([...this.inflight]);
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  /**
   * Attempts running longer than a lease (an attempt's deadline plus its margins): a wedged
   * deliverer. Reported in the platform's /health; such attempts also keep their destination's
   * share of the slots (the database no longer counts them once their lease has expired).
   */
  overdue(now = Date.now()): number {
    let n = 0;
    for (const at of this.started.values()) if (now - at > this.settings.leaseMs) n++;
    return n;
  }

  /** Destinations with their full share of attempts in flight in this replica. */
  private fullDestinations(): string[] {
    const full: string[] = [];
    for (const [dest, n] of this.perDestination) if (n >= this.settings.perDestination) full.push(dest);
    return full;
  }

  private count(dest: string, delta: number): void {
    const n = (this.perDestination.get(dest) ?? 0) + delta;
    if (n <= 0) this.perDestination.delete(dest);
    else this.perDestination.set(dest, n);
  }

  private arm(): void {
    clearTimeout(this.timer);
    if (!this.running) return;
    this.timer = setTimeout(() => this.wake(), this.settings.pollIntervalMs);
    this.timer.unref();
  }

  private async claimLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        const free = this.settings.concurrency - this.inflight.size;
        if (free <= 0) return;
        const claimed = await this.store.claim({
          limit: free,
          perDestination: this.settings.perDestination,
          leaseMs: this.settings.leaseMs,
          instance: this.settings.instance,
          excludeDestinations: this.fullDestinations(),
        });
        for (const delivery of claimed) {
          this.count(delivery.destination, 1);
          const task: Promise<void> = this.attempt
            .execute(delivery)
            .catch((err: unknown) =>
              this.logger.error({ err, webhookId: delivery.webhookId }, 'delivery attempt crashed'),
            )
            .finally(() => {
              this.inflight.delete(task);
              this.started.delete(task);
              this.count(delivery.destination, -1);
              this.wake();
            });
          this.inflight.add(task);
          this.started.set(task, Date.now());
        }
        // A full batch suggests more are due.
        if (claimed.length === free) this.again = true;
      } while (this.again && this.running);
    } catch (err) {
      // Back to the poll interval: retrying at once would spin while PostgreSQL is unreachable.
      this.again = false;
      this.logger.warn({ err }, 'claiming due deliveries failed; will retry');
    }
  }
}
