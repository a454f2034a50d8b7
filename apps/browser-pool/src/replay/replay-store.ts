import type { BrowserRenderRequest, ReplayContext } from '@wds/contracts';
import type { Database } from '@wds/database';

/** Replay contexts of browser-capable scrapes (URL, options, actions, profile) until they expire. */
export abstract class ReplayStore {
  abstract save(req: BrowserRenderRequest, retainMs: number): Promise<void>;
  abstract find(jobId: string): Promise<ReplayContext | undefined>;
  abstract purgeExpired(): Promise<number>;
}

interface Row {
  job_id: string;
  team_id: string;
  url: string;
  options: ReplayContext['options'];
  actions: ReplayContext['actions'];
  profile: ReplayContext['profile'] | null;
  created_at: Date;
  expires_at: Date;
}

export class PgReplayStore extends ReplayStore {
  constructor(private readonly db: Database) {
    super();
  }

  async save(req: BrowserRenderRequest, retainMs: number): Promise<void> {
    // The upstream proxy URL may carry credentials: it is never stored.
    const { actions, profile, teamId, jobId, url, upstreamProxy: _proxy, ...options } = req;
    // A job id is rendered again after a lost browser: the context stays the same.
    await this.db.query(
      `INSERT INTO browser_pool.replay_contexts (job_id, team_id, url, options, actions, profile, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')
       ON CONFLICT (job_id) DO NOTHING`,
      [
        jobId,
        teamId,
        url,
        JSON.stringify(options),
        JSON.stringify(actions),
        profile ? JSON.stringify(profile) : null,
        retainMs,
      ],
    );
  }

  async find(jobId: string): Promise<ReplayContext | undefined> {
    const res = await this.db.query<Row>(
      'SELECT * FROM browser_pool.replay_contexts WHERE job_id = $1 AND expires_at > now()',
      [jobId],
    );
    const r = res.rows[0];
    if (!r) return undefined;
    return {
      jobId: r.job_id,
      teamId: r.team_id,
      url: r.url,
      options: r.options,
      actions: r.actions,
      profile: r.profile ?? undefined,
      createdAt: r.created_at.toISOString(),
      expiresAt: r.expires_at.toISOString(),
    };
  }

  async purgeExpired(): Promise<number> {
    const res = await this.db.query('DELETE FROM browser_pool.replay_contexts WHERE expires_at <= now()');
    return res.rowCount ?? 0;
  }
}
