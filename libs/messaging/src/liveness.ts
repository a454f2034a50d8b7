import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { nuid } from '@nats-io/transport-node';

/** Request header naming the subject on which the responder says it is still working. */
export const ALIVE_HEADER = 'Wds-Alive';
/** How often a responder still working on a request says so. */
export const RESPONDER_HEARTBEAT_MS = 1000;
/**
 * A request whose responder has said nothing for this long is given up as unavailable, whatever
 * its own timeout: the responder died (SIGKILL, OOM, its node gone) and its reply will never come.
 * Without this a request to a killed scraper waited out the page timeout plus its margin (75 s).
 */
export const RESPONDER_SILENCE_MS = 4000;
const CHECK_EVERY_MS = 500;

interface Waiter {
  last: number;
  giveUp: () => void;
}

/**
 * The requester's side of responder liveness. Each request names a subject of this connection's
 * own (`Wds-Alive` header); a responder still working on it publishes an empty message there every
 * RESPONDER_HEARTBEAT_MS (from the first second on: short requests cost nothing). A request that
 * hears nothing for RESPONDER_SILENCE_MS is given up. One wildcard subscription per connection.
 */
export class ResponderLiveness {
  private readonly prefix = `_WDS_ALIVE.${nuid.next()}`;
  private readonly waiters = new Map<string, Waiter>();
  private sub?: Subscription;
  private timer?: NodeJS.Timeout;
  private lastCheck = 0;
  private seq = 0;

  constructor(private readonly nc: NatsConnection) {}

  /**
   * Runs `send(aliveSubject)`; rejects with `onSilence()`'s error when the responder falls silent.
   * The request itself is left to end on its own timeout (its late rejection is ignored).
   */
  async watch<T>(send: (aliveSubject: string) => Promise<T>, onSilence: () => Error): Promise<T> {
    this.start();
    const id = String(++this.seq);
    let giveUp!: () => void;
    const silent = new Promise<never>((_, reject) => {
      giveUp = () => reject(onSilence());
    });
    this.waiters.set(id, { last: Date.now(), giveUp });
    const request = send(`${this.prefix}.${id}`);
    try {
      return await Promise.race([request, silent]);
    } finally {
      this.waiters.delete(id);
      request.catch(() => undefined);
      silent.catch(() => undefined);
    }
  }

  /**
   * After a reconnect, replies and heartbeats sent during the outage may be lost: a responder that
   * is still working says so within a heartbeat, so every pending request gets that long (plus a
   * margin) instead of the full silence limit.
   */
  reconnected(): void {
    const now = Date.now();
    for (const w of this.waiters.values()) {
      w.last = Math.min(w.last, now - RESPONDER_SILENCE_MS + RESPONDER_HEARTBEAT_MS + CHECK_EVERY_MS);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.sub?.unsubscribe();
    this.sub = undefined;
  }

  private start(): void {
    if (this.sub) return;
    this.sub = this.nc.subscribe(`${this.prefix}.*`, {
      callback: (err, msg) => {
        if (err) return;
        const waiter = this.waiters.get(msg.subject.slice(this.prefix.length + 1));
        if (waiter) waiter.last = Date.now();
      },
    });
    this.lastCheck = Date.now();
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  private check(): void {
    const now = Date.now();
    // This process itself was stalled (CPU starved, a long synchronous task): heartbeats may be
    // waiting unread in the socket. Judge nobody on this round.
    const stalled = now - this.lastCheck > CHECK_EVERY_MS * 3;
    this.lastCheck = now;
    if (stalled) {
      for (const w of this.waiters.values()) w.last = Math.max(w.last, now - CHECK_EVERY_MS);
      return;
    }
    for (const [id, w] of this.waiters) {
      if (now - w.last > RESPONDER_SILENCE_MS) {
        this.waiters.delete(id);
        w.giveUp();
      }
    }
  }
}

/** The responder's side: says "still working" on `subject` until `stop()`. */
export function keepAlive(nc: NatsConnection, subject: string | undefined): () => void {
  if (!subject || !subject.startsWith('_WDS_ALIVE.')) return () => undefined;
  const timer = setInterval(() => {
    if (!nc.isClosed()) nc.publish(subject);
  }, RESPONDER_HEARTBEAT_MS);
  return () => clearInterval(timer);
}
