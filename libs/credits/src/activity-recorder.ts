import { createHash } from 'node:crypto';
import {
  ACTIVITY,
  ACTIVITY_BATCH_MAX,
  ActivityEvent,
  STREAMS,
  TokenUsageEvent,
  type ActivityBatchInput,
  type ActivityEventInput,
  type TokenUsageEventInput,
} from '@wds/contracts';
import type { Messaging } from '@wds/messaging';

type Item = { activity: ActivityEventInput } | { tokens: TokenUsageEventInput };

interface Waiting {
  item: Item;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** The part of Messaging the recorder uses (a test double can stand in for it). */
export type ActivityTransport = Pick<Messaging, 'publish' | 'ensureStreams'>;

/**
 * Publishes team activity and LLM token usage for billing to record (WDS_ACTIVITY_V1, see
 * `libs/contracts/src/messages/activity`). Events go out in natural batches: those of the same tick,
 * and those arriving while a batch is being stored, share one message; a lone event waits for
 * nothing but the stream's ack. Each promise resolves once JetStream has stored the event's batch
 * (from then on nothing is lost, whatever dies), and rejects when it could not be stored — the
 * caller decides whether that fails its request or is retried.
 *
 * Billing records each event id once: publishing an event again (same id, same createdAt) is safe.
 */
export class ActivityRecorder {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private streamReady?: Promise<void>;

  constructor(
    private readonly messaging: ActivityTransport,
    private readonly maxInFlight = 2,
  ) {}

  /** Records one billable public call (validated here, so a bad event fails its caller at once). */
  record(event: ActivityEventInput): Promise<void> {
    return this.enqueue({ activity: ActivityEvent.parse(event) });
  }

  /** Records the tokens one LLM call actually spent. */
  reportTokens(usage: TokenUsageEventInput): Promise<void> {
    return this.enqueue({ tokens: TokenUsageEvent.parse(usage) });
  }

  private enqueue(item: Item): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.send();
    });
  }

  private async send(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, ACTIVITY_BATCH_MAX);
    this.inFlight++;
    try {
      this.streamReady ??= this.messaging.ensureStreams([STREAMS.WDS_ACTIVITY_V1]).catch((err: unknown) => {
        this.streamReady = undefined;
        throw err;
      });
      await this.streamReady;
      const payload: ActivityBatchInput = { activity: [], tokens: [] };
      const ids = createHash('sha1');
      for (const { item } of batch) {
        if ('activity' in item) payload.activity!.push(item.activity);
        else payload.tokens!.push(item.tokens);
        ids.update('activity' in item ? `a:${item.activity.eventId}\n` : `t:${item.tokens.eventId}\n`);
      }
      // The same events published again within the stream's window are stored once.
      await this.messaging.publish(ACTIVITY, payload, { msgId: ids.digest('base64url') });
      for (const w of batch) w.resolve();
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}

const recorders = new WeakMap<ActivityTransport, ActivityRecorder>();

/** The process's recorder for this connection (one per Messaging, so all callers share batches). */
export function activityRecorder(messaging: ActivityTransport): ActivityRecorder {
  let recorder = recorders.get(messaging);
  if (!recorder) recorders.set(messaging, (recorder = new ActivityRecorder(messaging)));
  return recorder;
}

/**
 * Records one billable public call for the team's activity (GET /v2/team/activity). Resolves once
 * the event is durably stored on the stream.
 *
 *   await recordActivity(messaging, {
 *     eventId: `browser:${session.id}`, teamId, id: session.id, endpoint: 'browser',
 *     createdAt: Date.now(), target: null, apiKey: team.keyPrefix, credits: 0,
 *   });
 */
export function recordActivity(messaging: ActivityTransport, event: ActivityEventInput): Promise<void> {
  return activityRecorder(messaging).record(event);
}

/**
 * Records the tokens one LLM call actually spent, for the team's token usage
 * (GET /v2/team/token-usage/historical). Resolves once durably stored on the stream.
 *
 *   await reportTokens(messaging, {
 *     eventId: `${jobId}:llm:${n}`, teamId, apiKey, endpoint: 'scrape', jobId,
 *     model, inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, at: Date.now(),
 *   });
 */
export function reportTokens(messaging: ActivityTransport, usage: TokenUsageEventInput): Promise<void> {
  return activityRecorder(messaging).reportTokens(usage);
}
