import { ErrorCode, ServiceError, type WebhookDelivery, type WebhookEventType } from '@wds/contracts';
import type { Database } from '@wds/database';
import type { PlannedDelivery } from './delivery-plan';

/** A delivery leased to this replica for one attempt. */
export interface ClaimedDelivery {
  webhookId: string;
  teamId: string;
  jobId: string;
  type: WebhookEventType;
  url: string;
  /** scheme://host:port: the unit of the per-destination budget. */
  destination: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Attempts made before this one. */
  attempts: number;
  /** Of those, the ones since the delivery was last re-queued (what the retry schedule counts). */
  attemptsThisRound: number;
}

/** Which given-up deliveries of a team to send again. */
export interface RequeueFilter {
  teamId: string;
  jobId?: string;
  webhookIds?: readonly string[];
  /** Gave up at or after (ISO 8601). */
  failedSince?: string;
  /** Gave up before (ISO 8601). */
  failedUntil?: string;
}

export interface RequeueResult {
  requeued: number;
  /** Matching deliveries whose body zero data retention erased: they cannot be sent again. */
  erased: number;
}

export interface AttemptRecord {
  startedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export type AttemptOutcome =
  { kind: 'delivered' } | { kind: 'retry'; delayMs: number } | { kind: 'failed'; reason: string };

export interface ClaimOptions {
  limit: number;
  perDestination: number;
  leaseMs: number;
  instance: string;
  /**
   * Destinations this replica already has its full share of attempts in flight to (some may have
   * outlived their lease, which the database no longer counts): none of theirs is claimed.
   */
  excludeDestinations?: readonly string[];
}

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

/** The outbox of deliveries and their attempts (port; `PgDeliveryStore` is the implementation). */
export abstract class DeliveryStore {
  /** Inserts the delivery unless its webhookId is already known; true when inserted. */
  abstract insert(d: PlannedDelivery, settleMs: number): Promise<boolean>;
  /** Leases due deliveries whose job order allows them, within the per-destination cap. */
  abstract claim(opts: ClaimOptions): Promise<ClaimedDelivery[]>;
  /** Gives a lease back without counting an attempt; the delivery is due again after `delayMs`. */
  abstract release(webhookId: string, instance: string, delayMs: number): Promise<void>;
  /**
   * Stores the attempt and the delivery's new state; false when the lease was lost meanwhile. A
   * zero-data-retention delivery that ends (delivered or given up) has its body erased.
   */
  abstract recordAttempt(
    webhookId: string,
    instance: string,
    attempt: AttemptRecord,
    outcome: AttemptOutcome,
  ): Promise<boolean>;
  abstract list(teamId: string, jobId: string, limit: number, cursor?: string): Promise<DeliveryPage>;
  /**
   * Makes the matching `failed` deliveries pending and due now, their retry schedule started over
   * (attempt numbers and history go on); erased zero-data-retention ones stay failed.
   */
  abstract requeue(filter: RequeueFilter): Promise<RequeueResult>;
  /** Deletes delivered/failed deliveries finished before `olderThanMs` ago; the number deleted. */
  abstract purgeFinished(olderThanMs: number): Promise<number>;
}

interface ClaimRow {
  webhook_id: string;
  team_id: string;
  job_id: string;
  type: WebhookEventType;
  url: string;
  destination: string;
  headers: Record<string, string>;
  body: Buffer;
  attempts: number;
  retry_base: number;
}

interface ListRow {
  webhook_id: string;
  type: WebhookEventType;
  url: string;
  status: WebhookDelivery['status'];
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  next_attempt_at: Date;
  phase: number;
  seq: string;
  serial: string;
  history: {
    attempt: number;
    at: string;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
  }[];
}

const CURSOR = /^(\d+)\.(\d+)\.(\d+)$/;

export class PgDeliveryStore extends DeliveryStore {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(d: PlannedDelivery, settleMs: number): Promise<boolean> {
    // Pages wait briefly for a `started` not recorded yet, and completed/failed for pages still in
    // flight through the consumer: events are recorded concurrently, so arrival order is not final.
    const res = await this.db.query(
      `INSERT INTO webhooks.deliveries
         (webhook_id, team_id, job_id, type, url, destination, phase, seq, headers, body, zero_data_retention,
          next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::smallint, $8, $9, $10, $13,
         now() + CASE
           WHEN $7::smallint = 2 THEN $11::int
           WHEN $7::smallint = 1 AND $12 AND NOT EXISTS (
             SELECT 1 FROM webhooks.deliveries WHERE job_id = $3 AND phase = 0) THEN $11::int
           ELSE 0 END * interval '1 millisecond')
       ON CONFLICT (webhook_id) DO NOTHING`,
      [
        d.webhookId,
        d.teamId,
        d.jobId,
        d.type,
        d.url,
        d.destination,
        d.phase,
        d.seq,
        JSON.stringify(d.headers),
        d.body,
        settleMs,
        d.expectsStarted,
        d.zeroDataRetention,
      ],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async claim(opts: ClaimOptions): Promise<ClaimedDelivery[]> {
    const { rows } = await this.db.tx(async (q) => {
      // Claims are serialised across replicas (one short statement each), so the per-destination
      // cap counts every live lease exactly; SKIP LOCKED still keeps claims off rows being recorded.
      await q.query("SELECT pg_advisory_xact_lock(hashtext('wds.webhooks.claim'))");
      // Each destination offers at most (cap - its live leases) of its oldest claimable rows, so a
      // backlog for a dead receiver never crowds other destinations out of a claim.
      return q.query<ClaimRow>(
        `WITH busy AS (
           SELECT destination, count(*)::int AS n FROM webhooks.deliveries
           WHERE status = 'pending' AND leased_until > now()
           GROUP BY destination
         ), dests AS (
           SELECT DISTINCT destination FROM webhooks.deliveries
           WHERE status = 'pending' AND next_attempt_at <= now()
             AND (leased_until IS NULL OR leased_until <= now())
             AND NOT (destination = ANY($5::text[]))
         ), candidates AS (
           SELECT c.webhook_id, c.next_attempt_at, c.serial
           FROM dests
           LEFT JOIN busy b ON b.destination = dests.destination
           CROSS JOIN LATERAL (
             SELECT d.webhook_id, d.next_attempt_at, d.serial FROM webhooks.deliveries d
             WHERE d.destination = dests.destination AND d.status = 'pending' AND d.next_attempt_at <= now()
               AND (d.leased_until IS NULL OR d.leased_until <= now())
               AND NOT EXISTS (
                 SELECT 1 FROM webhooks.deliveries e
                 WHERE e.job_id = d.job_id AND e.status = 'pending' AND e.phase < d.phase)
             ORDER BY d.next_attempt_at, d.serial
             LIMIT greatest($2 - coalesce(b.n, 0), 0)
           ) c
         ), picked AS (
           SELECT webhook_id FROM candidates ORDER BY next_attempt_at, serial LIMIT $1
         ), locked AS (
           SELECT d.webhook_id FROM webhooks.deliveries d
           WHERE d.webhook_id IN (SELECT webhook_id FROM picked)
             AND d.status = 'pending' AND (d.leased_until IS NULL OR d.leased_until <= now())
           FOR UPDATE SKIP LOCKED
         )
         UPDATE webhooks.deliveries d
         SET leased_until = now() + $3::int * interval '1 millisecond', leased_by = $4
         FROM locked WHERE d.webhook_id = locked.webhook_id
         RETURNING d.webhook_id, d.team_id, d.job_id, d.type, d.url, d.destination, d.headers, d.body, d.attempts,
                   d.retry_base`,
        [opts.limit, opts.perDestination, opts.leaseMs, opts.instance, opts.excludeDestinations ?? []],
      );
    });
    return rows.map((r) => ({
      webhookId: r.webhook_id,
      teamId: r.team_id,
      jobId: r.job_id,
      type: r.type,
      url: r.url,
      destination: r.destination,
      headers: r.headers,
      body: r.body,
      attempts: r.attempts,
      attemptsThisRound: r.attempts - r.retry_base,
    }));
  }

  async release(webhookId: string, instance: string, delayMs: number): Promise<void> {
    await this.db.query(
      `UPDATE webhooks.deliveries
       SET leased_until = NULL, leased_by = NULL, next_attempt_at = now() + $3::int * interval '1 millisecond'
       WHERE webhook_id = $1 AND leased_by = $2 AND status = 'pending'`,
      [webhookId, instance, delayMs],
    );
  }

  async recordAttempt(
    webhookId: string,
    instance: string,
    attempt: AttemptRecord,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const status = outcome.kind === 'retry' ? 'pending' : outcome.kind;
    const lastError = outcome.kind === 'failed' ? outcome.reason : attempt.error;
    const delayMs = outcome.kind === 'retry' ? outcome.delayMs : 0;
    // One statement (atomic, one round trip): the new state, guarded by the lease, and the attempt row.
    const res = await this.db.query(
      `WITH updated AS (
         UPDATE webhooks.deliveries
         SET attempts = attempts + 1, status = $3, last_status = $4, last_error = $5,
             leased_until = NULL, leased_by = NULL,
             next_attempt_at = now() + $6::int * interval '1 millisecond',
             delivered_at = CASE WHEN $3 = 'delivered' THEN now() END,
             finished_at = CASE WHEN $3 <> 'pending' THEN now() END,
             -- A zero-data-retention body (documents) is kept only while it may still be sent.
             body = CASE WHEN $3 <> 'pending' AND zero_data_retention THEN ''::bytea ELSE body END,
             body_erased_at = CASE WHEN $3 <> 'pending' AND zero_data_retention THEN now() END
         WHERE webhook_id = $1 AND leased_by = $2 AND status = 'pending'
         RETURNING webhook_id, attempts, job_id, phase, status, next_attempt_at
       ), held AS (
         -- Later phases of the job wait for this retry instead of being scanned by every claim.
         UPDATE webhooks.deliveries h SET next_attempt_at = greatest(h.next_attempt_at, u.next_attempt_at)
         FROM updated u
         WHERE u.status = 'pending' AND h.job_id = u.job_id AND h.status = 'pending' AND h.phase > u.phase
       )
       INSERT INTO webhooks.delivery_attempts (webhook_id, attempt, started_at, status_code, error, duration_ms)
       SELECT webhook_id, attempts, $7, $4, $8, $9 FROM updated`,
      [
        webhookId,
        instance,
        status,
        attempt.statusCode,
        lastError,
        delayMs,
        attempt.startedAt,
        attempt.error,
        attempt.durationMs,
      ],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async list(teamId: string, jobId: string, limit: number, cursor?: string): Promise<DeliveryPage> {
    const after = cursor ? CURSOR.exec(cursor) : null;
    if (cursor && !after)
      throw new ServiceError(ErrorCode.BAD_REQUEST, 'cursor is not a cursor this endpoint issued');
    const { rows } = await this.db.query<ListRow>(
      `SELECT d.webhook_id, d.type, d.url, d.status, d.attempts, d.last_status, d.last_error, d.created_at,
              d.delivered_at, d.next_attempt_at, d.phase, d.seq, d.serial,
              coalesce((SELECT json_agg(json_build_object(
                          'attempt', a.attempt, 'at', a.finished_at, 'statusCode', a.status_code,
                          'error', a.error, 'durationMs', a.duration_ms) ORDER BY a.attempt)
                        FROM webhooks.delivery_attempts a WHERE a.webhook_id = d.webhook_id), '[]'::json) AS history
       FROM webhooks.deliveries d
       WHERE d.job_id = $1 AND d.team_id = $2
         AND ($4::bigint IS NULL OR (d.phase::bigint, d.seq, d.serial) > ($4::bigint, $5::bigint, $6::bigint))
       ORDER BY d.phase, d.seq, d.serial
       LIMIT $3 + 1`,
      [jobId, teamId, limit, after?.[1] ?? null, after?.[2] ?? null, after?.[3] ?? null],
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      deliveries: page.map((r) => ({
        webhookId: r.webhook_id,
        type: r.type,
        url: r.url,
        status: r.status,
        attempts: r.attempts,
        lastStatusCode: r.last_status,
        lastError: r.last_error,
        createdAt: r.created_at.toISOString(),
        deliveredAt: r.delivered_at?.toISOString() ?? null,
        nextAttemptAt: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
        history: r.history.map((h) => ({ ...h, at: new Date(h.at).toISOString() })),
      })),
      nextCursor: rows.length > limit && last ? `${last.phase}.${last.seq}.${last.serial}` : null,
    };
  }

  async requeue(f: RequeueFilter): Promise<RequeueResult> {
    const { rows } = await this.db.query<{ requeued: number; erased: number }>(
      `WITH target AS (
         SELECT webhook_id, body_erased_at IS NOT NULL AS erased FROM webhooks.deliveries
         WHERE team_id = $1 AND status = 'failed'
           AND ($2::uuid IS NULL OR job_id = $2)
           AND ($3::uuid[] IS NULL OR webhook_id = ANY($3::uuid[]))
           AND ($4::timestamptz IS NULL OR finished_at >= $4)
           AND ($5::timestamptz IS NULL OR finished_at < $5)
         FOR UPDATE
       ), requeued AS (
         UPDATE webhooks.deliveries d
         SET status = 'pending', next_attempt_at = now(), finished_at = NULL, leased_until = NULL,
             leased_by = NULL, retry_base = d.attempts, requeues = d.requeues + 1, requeued_at = now()
         FROM target t WHERE d.webhook_id = t.webhook_id AND NOT t.erased
         RETURNING d.webhook_id
       )
       SELECT (SELECT count(*) FROM requeued)::int AS requeued,
              (SELECT count(*) FROM target WHERE erased)::int AS erased`,
      [f.teamId, f.jobId ?? null, f.webhookIds ?? null, f.failedSince ?? null, f.failedUntil ?? null],
    );
    return rows[0];
  }

  async purgeFinished(olderThanMs: number): Promise<number> {
    const res = await this.db.query(
      `DELETE FROM webhooks.deliveries
       WHERE status <> 'pending' AND finished_at < now() - $1::bigint * interval '1 millisecond'`,
      [olderThanMs],
    );
    return res.rowCount ?? 0;
  }
}
