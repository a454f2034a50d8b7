import { ErrorCode, ServiceError, type BrowserProfile, type BrowserSessionRecord } from '@wds/contracts';
import type { Database } from '@wds/database';
import { dropSessionLease, renewSessionLeases, takeSessionLease } from './session-leases';

interface Row {
  id: string;
  team_id: string;
  status: 'active' | 'destroyed';
  replica_id: string;
  scrape_job_id: string | null;
  stream_web_view: boolean;
  ttl_seconds: number;
  activity_ttl_seconds: number;
  token: string | null;
  profile: BrowserProfile | null;
  reservation_id: string | null;
  created_at: Date;
  last_activity: Date;
  expires_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
  duration_ms: string | null;
  credits_billed: number | null;
  prompt_used: boolean;
  recording_token: string | null;
}

export interface NewSession {
  id: string;
  teamId: string;
  replicaId: string;
  scrapeJobId?: string;
  streamWebView: boolean;
  ttlSeconds: number;
  activityTtlSeconds: number;
  token: string;
  /** Set when the session is recorded (recording.ts). */
  recordingToken?: string;
  profile?: BrowserProfile;
  maxSessions: number;
  /** The team's concurrency limit, when the session holds one of its slots (session-leases.ts). */
  concurrency?: { max: number; requestLeaseId?: string };
}

export interface EndedSession {
  record: BrowserSessionRecord;
  reservationId?: string;
  profile?: BrowserProfile;
}

export function toRecord(r: Row): BrowserSessionRecord {
  return {
    id: r.id,
    teamId: r.team_id,
    status: r.status,
    replicaId: r.replica_id,
    ...(r.scrape_job_id ? { scrapeJobId: r.scrape_job_id } : {}),
    streamWebView: r.stream_web_view,
    ttlSeconds: r.ttl_seconds,
    activityTtlSeconds: r.activity_ttl_seconds,
    createdAt: r.created_at.toISOString(),
    lastActivity: r.last_activity.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    ...(r.ended_at ? { endedAt: r.ended_at.toISOString() } : {}),
    ...(r.end_reason ? { endReason: r.end_reason } : {}),
    ...(r.duration_ms !== null ? { durationMs: Number(r.duration_ms) } : {}),
    ...(r.credits_billed !== null ? { creditsBilled: r.credits_billed } : {}),
    ...(r.token && r.status === 'active' ? { token: r.token } : {}),
    ...(r.recording_token ? { recordingToken: r.recording_token } : {}),
  };
}

/** browser_pool.sessions and browser_pool.session_replicas. */
export class SessionStore {
  constructor(private readonly db: Database) {}

  /**
   * Inserts an active session unless the team already has `maxSessions` active ones (checked under a
   * per-team advisory lock, so two replicas cannot both take the last slot) or the scrape already
   * had a session (CONFLICT with details.existing).
   */
  async insert(s: NewSession): Promise<BrowserSessionRecord> {
    return this.db.tx(async (q) => {
      await q.query("SELECT pg_advisory_xact_lock(hashtext('browser_pool.sessions:' || $1))", [s.teamId]);
      const active = await q.query<{ n: string }>(
        "SELECT count(*) AS n FROM browser_pool.sessions WHERE team_id = $1 AND status = 'active'",
        [s.teamId],
      );
      if (Number(active.rows[0].n) >= s.maxSessions) {
        throw new ServiceError(
          ErrorCode.CONCURRENCY_LIMITED,
          `Maximum concurrent browser sessions reached (${s.maxSessions}); end one first`,
          { reason: 'team', maxSessions: s.maxSessions },
          5,
        );
      }
      if (s.profile?.saveChanges) {
        const writer = await q.query(
          `SELECT 1 FROM browser_pool.sessions WHERE team_id = $1 AND status = 'active'
             AND profile->>'name' = $2 AND (profile->>'saveChanges')::boolean`,
          [s.teamId, s.profile.name],
        );
        if (writer.rowCount) {
          throw new ServiceError(
            ErrorCode.CONFLICT,
            `Another session is writing to profile "${s.profile.name}"; end it or use saveChanges: false`,
          );
        }
      }
      const res = await q.query<Row>(
        `INSERT INTO browser_pool.sessions (id, team_id, status, replica_id, scrape_job_id, stream_web_view,
           ttl_seconds, activity_ttl_seconds, token, profile, recording_token, expires_at)
         VALUES ($1, $2, 'active', $3, $4, $5, $6::int, $7, $8, $9, $10,
                 now() + make_interval(secs => $6::int))
         ON CONFLICT DO NOTHING RETURNING *`,
        [
          s.id,
          s.teamId,
          s.replicaId,
          s.scrapeJobId ?? null,
          s.streamWebView,
          s.ttlSeconds,
          s.activityTtlSeconds,
          s.token,
          s.profile ? JSON.stringify(s.profile) : null,
          s.recordingToken ?? null,
        ],
      );
      if (!res.rows[0])
        throw new ServiceError(ErrorCode.CONFLICT, 'This scrape already has a browser session');
      // Last: a refusal rolls the session row back.
      if (s.concurrency) await takeSessionLease(q, s.teamId, s.id, s.concurrency);
      return toRecord(res.rows[0]);
    });
  }

  async setReservation(id: string, reservationId: string): Promise<void> {
    await this.db.query('UPDATE browser_pool.sessions SET reservation_id = $2 WHERE id = $1', [
      id,
      reservationId,
    ]);
  }

  async find(id: string): Promise<BrowserSessionRecord | undefined> {
    const res = await this.db.query<Row>('SELECT * FROM browser_pool.sessions WHERE id = $1', [id]);
    return res.rows[0] ? toRecord(res.rows[0]) : undefined;
  }

  async findByScrape(scrapeJobId: string): Promise<BrowserSessionRecord | undefined> {
    const res = await this.db.query<Row>('SELECT * FROM browser_pool.sessions WHERE scrape_job_id = $1', [
      scrapeJobId,
    ]);
    return res.rows[0] ? toRecord(res.rows[0]) : undefined;
  }

  async list(teamId: string, status?: 'active' | 'destroyed'): Promise<BrowserSessionRecord[]> {
    const res = await this.db.query<Row>(
      `SELECT * FROM browser_pool.sessions WHERE team_id = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY created_at DESC LIMIT 1000`,
      [teamId, status ?? null],
    );
    return res.rows.map(toRecord);
  }

  async touch(id: string): Promise<void> {
    await this.db.query(
      "UPDATE browser_pool.sessions SET last_activity = now() WHERE id = $1 AND status = 'active'",
      [id],
    );
  }

  /**
   * Ends an active session: exactly one caller wins (the row is claimed with its duration and
   * credits, at the prompt rate when a prompt ran in it); the others get undefined. `endAt` defaults to now (a lost replica's sessions end when
   * it was last seen).
   */
  async claimEnd(
    id: string,
    reason: string,
    credits: (durationMs: number, promptUsed: boolean) => number,
    endAt?: Date,
  ): Promise<EndedSession | undefined> {
    return this.db.tx(async (q) => {
      const res = await q.query<Row>(
        "SELECT * FROM browser_pool.sessions WHERE id = $1 AND status = 'active' FOR UPDATE",
        [id],
      );
      const row = res.rows[0];
      if (!row) return undefined;
      const end = endAt && endAt > row.created_at ? endAt : endAt ? row.created_at : new Date();
      const durationMs = Math.max(0, end.getTime() - row.created_at.getTime());
      const updated = await q.query<Row>(
        `UPDATE browser_pool.sessions SET status = 'destroyed', token = NULL, ended_at = $2, end_reason = $3,
           duration_ms = $4, credits_billed = $5 WHERE id = $1 RETURNING *`,
        [id, end, reason, durationMs, credits(durationMs, row.prompt_used)],
      );
      await dropSessionLease(q, id);
      return {
        record: toRecord(updated.rows[0]),
        reservationId: row.reservation_id ?? undefined,
        profile: row.profile ?? undefined,
      };
    });
  }

  /** An interact prompt ran in the session: it is billed at the prompt rate from now on. */
  async markPromptUsed(id: string): Promise<void> {
    await this.db.query('UPDATE browser_pool.sessions SET prompt_used = true WHERE id = $1', [id]);
  }

  async markBilled(id: string): Promise<void> {
    await this.db.query('UPDATE browser_pool.sessions SET billed_at = now() WHERE id = $1', [id]);
  }

  /** Ended sessions whose charge is not on record yet (billing was unreachable when they ended). */
  async unbilled(limit = 100): Promise<{ id: string; reservationId?: string; credits: number }[]> {
    const res = await this.db.query<{ id: string; reservation_id: string | null; credits_billed: number }>(
      `SELECT id, reservation_id, credits_billed FROM browser_pool.sessions
       WHERE status = 'destroyed' AND billed_at IS NULL AND ended_at < now() - interval '10 seconds'
       ORDER BY ended_at LIMIT $1`,
      [limit],
    );
    return res.rows.map((r) => ({
      id: r.id,
      reservationId: r.reservation_id ?? undefined,
      credits: r.credits_billed,
    }));
  }

  /** Renews the concurrency leases of these (live) sessions. */
  async renewLeases(sessionIds: string[]): Promise<void> {
    await renewSessionLeases(this.db, sessionIds);
  }

  async heartbeat(replicaId: string, endpoint: string): Promise<void> {
    await this.db.query(
      `INSERT INTO browser_pool.session_replicas (id, endpoint, seen_at) VALUES ($1, $2, now())
       ON CONFLICT (id) DO UPDATE SET endpoint = EXCLUDED.endpoint, seen_at = now()`,
      [replicaId, endpoint],
    );
  }

  async replicaEndpoint(replicaId: string): Promise<string | undefined> {
    const res = await this.db.query<{ endpoint: string }>(
      'SELECT endpoint FROM browser_pool.session_replicas WHERE id = $1',
      [replicaId],
    );
    return res.rows[0]?.endpoint;
  }

  async forgetReplica(replicaId: string): Promise<void> {
    await this.db.query('DELETE FROM browser_pool.session_replicas WHERE id = $1', [replicaId]);
  }

  /** Active sessions of replicas not seen for `silentMs` (or unknown), with when each was last seen. */
  async orphaned(silentMs: number): Promise<{ id: string; lastSeen?: Date }[]> {
    const res = await this.db.query<{ id: string; seen_at: Date | null }>(
      `SELECT s.id, r.seen_at FROM browser_pool.sessions s
       LEFT JOIN browser_pool.session_replicas r ON r.id = s.replica_id
       WHERE s.status = 'active' AND s.created_at < now() - make_interval(secs => $1::double precision / 1000)
         AND (r.seen_at IS NULL OR r.seen_at < now() - make_interval(secs => $1::double precision / 1000))
       LIMIT 500`,
      [silentMs],
    );
    return res.rows.map((r) => ({ id: r.id, lastSeen: r.seen_at ?? undefined }));
  }
}
