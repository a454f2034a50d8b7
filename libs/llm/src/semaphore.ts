import { LlmError } from './errors';

interface Waiter {
  tenant: string;
  resolve: () => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Caps concurrent provider calls per replica. Waiters queue per tenant (a team) and a freed slot
 * goes to the tenants in turn, so a team with a thousand queued calls delays another team's call
 * by at most one call per slot, not by its whole queue; calls without a tenant form one tenant of
 * their own. Waiters leave the queue when their signal aborts, so a caller whose deadline passed
 * never holds a place (p-limit cannot drop a queued task).
 */
export class Semaphore {
  private active = 0;
  private waiting = 0;
  /** Tenants with waiters, in the order their turn comes (Map keeps insertion order). */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly limit: number) {}

  get queued(): number {
    return this.waiting;
  }

  get running(): number {
    return this.active;
  }

  async acquire(signal?: AbortSignal, tenant = ''): Promise<() => void> {
    if (signal?.aborted) throw abortError(signal);
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { tenant, resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          this.remove(waiter);
          reject(abortError(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      const queue = this.queues.get(tenant);
      if (queue) queue.push(waiter);
      else this.queues.set(tenant, [waiter]);
      this.waiting++;
    });
    return this.releaser();
  }

  private remove(waiter: Waiter): void {
    const queue = this.queues.get(waiter.tenant);
    const i = queue ? queue.indexOf(waiter) : -1;
    if (!queue || i < 0) return;
    queue.splice(i, 1);
    this.waiting--;
    if (queue.length === 0) this.queues.delete(waiter.tenant);
  }

  /** The first waiter of the tenant whose turn it is; that tenant goes to the back of the line. */
  private next(): Waiter | undefined {
    const first = this.queues.entries().next();
    if (first.done) return undefined;
    const [tenant, queue] = first.value;
    const waiter = queue.shift()!;
    this.waiting--;
    this.queues.delete(tenant);
    if (queue.length > 0) this.queues.set(tenant, queue);
    return waiter;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.next();
      if (next) {
        if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
        next.resolve(); // the slot passes on: active stays the same
      } else {
        this.active--;
      }
    };
  }
}

export function abortError(signal: AbortSignal): LlmError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return timedOut
    ? new LlmError('timeout', 'The model did not answer before the request deadline.')
    : new LlmError('aborted', 'The model call was cancelled.');
}
