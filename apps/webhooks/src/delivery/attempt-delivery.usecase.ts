import { ServiceError, WEBHOOK_SIGNATURE_HEADER } from '@wds/contracts';
import type { Logger } from '@wds/observability';
import type { AttemptOutcome, ClaimedDelivery, DeliveryStore } from './delivery-store';
import { retryDelayMs } from './retry-schedule';
import { signatureFor } from './signature';
import type { TeamSecrets } from './team-secrets';
import type { WebhookSender } from './webhook-sender';

export const WEBHOOK_USER_AGENT = 'WDS-Webhooks/1.0';

export interface AttemptSettings {
  /** Back-off after the 1st, 2nd, ... failed attempt; when used up, the delivery fails. */
  schedule: readonly number[];
  timeoutMs: number;
  /** Lease owner id of this replica. */
  instance: string;
  /** Delay before trying again when the team's secret could not be read (no attempt is counted). */
  secretRetryMs: number;
}

/**
 * The sender's own timeout covers DNS, connecting, queueing and the answer; this deadline is the
 * backstop that frees the slot whatever the sender does (an attempt never outlives its lease).
 */
const DEADLINE_GRACE_MS = 1000;

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`attempt did not end within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Failures no retry can fix: the delivery fails at once. */
const PERMANENT_CODES = new Set(['DESTINATION_BLOCKED', 'BAD_REQUEST']);

/** One HTTP attempt of a leased delivery, and what follows from it (delivered, retry later, give up). */
export class AttemptDeliveryUseCase {
  constructor(
    private readonly store: DeliveryStore,
    private readonly secrets: TeamSecrets,
    private readonly sender: WebhookSender,
    private readonly settings: AttemptSettings,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random,
  ) {}

  async execute(d: ClaimedDelivery): Promise<void> {
    const log = this.logger.child({ webhookId: d.webhookId, jobId: d.jobId, type: d.type });
    let secret: string | null;
    try {
      secret = await this.secrets.get(d.teamId);
    } catch (err) {
      // Never send unsigned what should be signed: wait for the gateway instead.
      log.warn({ err, teamId: d.teamId }, 'webhook secret unavailable; delivery postponed');
      await this.store.release(d.webhookId, this.settings.instance, this.settings.secretRetryMs);
      return;
    }

    const headers: Record<string, string> = { 'user-agent': WEBHOOK_USER_AGENT };
    for (const [name, value] of Object.entries(d.headers)) headers[name.toLowerCase()] = value;
    headers['content-type'] = 'application/json';
    if (secret !== null) headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] = signatureFor(secret, d.body);

    const startedAt = new Date();
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    let permanent = false;
    try {
      ({ status: statusCode } = await withDeadline(
        this.sender.send({ url: d.url, headers, body: d.body, timeoutMs: this.settings.timeoutMs }),
        this.settings.timeoutMs + DEADLINE_GRACE_MS,
      ));
      if (statusCode < 200 || statusCode > 299) error = `receiver answered HTTP ${statusCode}`;
    } catch (err) {
      error = describeFailure(err);
      permanent = err instanceof ServiceError && PERMANENT_CODES.has(err.code);
    }
    const durationMs = Math.round(performance.now() - started);

    const attemptNo = d.attempts + 1;
    const outcome = this.outcome(d.attemptsThisRound + 1, d.attempts - d.attemptsThisRound, error, permanent);
    const recorded = await this.store.recordAttempt(
      d.webhookId,
      this.settings.instance,
      { startedAt, statusCode, error, durationMs },
      outcome,
    );
    if (!recorded) log.warn('delivery lease was lost during the attempt; outcome not recorded');
    else if (outcome.kind === 'delivered')
      log.debug({ statusCode, durationMs, attempt: attemptNo }, 'delivered');
    else if (outcome.kind === 'retry')
      log.info(
        { statusCode, error, attempt: attemptNo, retryInMs: outcome.delayMs },
        'delivery attempt failed',
      );
    else log.warn({ statusCode, reason: outcome.reason, attempt: attemptNo }, 'delivery failed');
  }

  /** `round`: this attempt's number since the delivery was (re-)queued; `before`: attempts of earlier rounds. */
  private outcome(round: number, before: number, error: string | null, permanent: boolean): AttemptOutcome {
    if (error === null) return { kind: 'delivered' };
    if (permanent) return { kind: 'failed', reason: error };
    const delayMs = retryDelayMs(this.settings.schedule, round, this.random);
    if (delayMs === undefined) {
      const since = before > 0 ? ` since it was re-queued (${round + before} in all)` : '';
      return { kind: 'failed', reason: `gave up after ${round} attempts${since}: ${error}` };
    }
    return { kind: 'retry', delayMs };
  }
}

function describeFailure(err: unknown): string {
  if (err instanceof ServiceError) {
    const reason = (err.details as { reason?: unknown } | undefined)?.reason;
    if (reason === 'too_many_redirects')
      return 'receiver answered with a redirect; redirects are not followed';
    if (err.code === 'DESTINATION_BLOCKED')
      return `destination refused by the network policy: ${err.message}`;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
