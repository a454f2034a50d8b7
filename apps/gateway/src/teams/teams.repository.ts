import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Database, type Queryable } from '@wds/database';
import { DEFAULT_TEAM_LIMITS, type AuthenticatedTeam, type TeamLimits } from './team';

interface KeyRow {
  prefix: string;
  key_sha256: Buffer;
  revoked_at: Date | null;
  team_id: string;
  enterprise: boolean;
  zero_data_retention_enabled: boolean;
  requests_per_minute: number;
  max_concurrency: number;
  max_browser_sessions: number;
}

export interface KeyLookup {
  team: AuthenticatedTeam;
  keySha256: Buffer;
  revoked: boolean;
}

export interface NewTeam {
  name: string;
  limits?: Partial<TeamLimits>;
  isBootstrap?: boolean;
  webhookSecret?: string;
  enterprise?: boolean;
  zeroDataRetention?: boolean;
}

export interface TeamFeatures {
  enterprise: boolean;
  zeroDataRetention: boolean;
}

/** Teams and API keys in the gateway schema. Methods take an optional runner to join a transaction. */
@Injectable()
export class TeamsRepository {
  constructor(private readonly db: Database) {}

  async findKey(prefix: string): Promise<KeyLookup | undefined> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT k.prefix, k.key_sha256, k.revoked_at, t.id AS team_id, t.enterprise, t.zero_data_retention_enabled,
              t.requests_per_minute, t.max_concurrency, t.max_browser_sessions
       FROM gateway.api_keys k JOIN gateway.teams t ON t.id = k.team_id
       WHERE k.prefix = $1`,
      [prefix],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      keySha256: r.key_sha256,
      revoked: r.revoked_at !== null,
      team: {
        teamId: r.team_id,
        keyPrefix: r.prefix,
        enterprise: r.enterprise,
        zeroDataRetentionEnabled: r.zero_data_retention_enabled,
        limits: {
          requestsPerMinute: r.requests_per_minute,
          maxConcurrency: r.max_concurrency,
          maxBrowserSessions: r.max_browser_sessions,
        },
      },
    };
  }

  /** Best effort, coarse (at most once a minute per key) so authentication stays read-mostly. */
  async touchKey(prefix: string): Promise<void> {
    await this.db.query(
      `UPDATE gateway.api_keys SET last_used_at = now()
       WHERE prefix = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [prefix],
    );
  }

  async createTeam(team: NewTeam, q: Queryable = this.db): Promise<string> {
    const id = randomUUID();
    await q.query(
      `INSERT INTO gateway.teams (id, name, is_bootstrap, webhook_secret, requests_per_minute, max_concurrency,
                                  max_browser_sessions, enterprise, zero_data_retention_enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        team.name,
        team.isBootstrap ?? false,
        team.webhookSecret ?? null,
        team.limits?.requestsPerMinute ?? DEFAULT_TEAM_LIMITS.requestsPerMinute,
        team.limits?.maxConcurrency ?? DEFAULT_TEAM_LIMITS.maxConcurrency,
        team.limits?.maxBrowserSessions ?? DEFAULT_TEAM_LIMITS.maxBrowserSessions,
        team.enterprise ?? false,
        team.zeroDataRetention ?? false,
      ],
    );
    return id;
  }

  async teamExists(teamId: string): Promise<boolean> {
    const { rows } = await this.db.query('SELECT 1 FROM gateway.teams WHERE id = $1', [teamId]);
    return rows.length > 0;
  }

  async findBootstrapTeam(q: Queryable = this.db): Promise<string | undefined> {
    const { rows } = await q.query<{ id: string }>('SELECT id FROM gateway.teams WHERE is_bootstrap');
    return rows[0]?.id;
  }

  /** Inserts a key; false when the prefix is already taken (by this or another key). */
  async insertKey(
    key: { prefix: string; sha256: Buffer; teamId: string; name?: string },
    q: Queryable = this.db,
  ): Promise<boolean> {
    const res = await q.query(
      `INSERT INTO gateway.api_keys (prefix, key_sha256, team_id, name) VALUES ($1, $2, $3, $4)
       ON CONFLICT (prefix) DO NOTHING`,
      [key.prefix, key.sha256, key.teamId, key.name ?? null],
    );
    return (res.rowCount ?? 0) > 0;
  }

  /** Marks the key revoked; false when no such key exists. Revoking twice keeps the first time. */
  async revokeKey(prefix: string): Promise<boolean> {
    const res = await this.db.query(
      'UPDATE gateway.api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE prefix = $1',
      [prefix],
    );
    return (res.rowCount ?? 0) > 0;
  }

  /** Applies the given limits; false when the team does not exist. */
  async updateLimits(teamId: string, limits: Partial<TeamLimits>): Promise<boolean> {
    const res = await this.db.query(
      `UPDATE gateway.teams SET
         requests_per_minute = COALESCE($2, requests_per_minute),
         max_concurrency = COALESCE($3, max_concurrency),
         max_browser_sessions = COALESCE($4, max_browser_sessions)
       WHERE id = $1`,
      [
        teamId,
        limits.requestsPerMinute ?? null,
        limits.maxConcurrency ?? null,
        limits.maxBrowserSessions ?? null,
      ],
    );
    return (res.rowCount ?? 0) > 0;
  }

  /** Sets the given flags and keeps the others; the team's resulting flags, undefined when it does not exist. */
  async updateFeatures(teamId: string, features: Partial<TeamFeatures>): Promise<TeamFeatures | undefined> {
    const { rows } = await this.db.query<{ enterprise: boolean; zero_data_retention_enabled: boolean }>(
      `UPDATE gateway.teams SET
         enterprise = COALESCE($2, enterprise),
         zero_data_retention_enabled = COALESCE($3, zero_data_retention_enabled)
       WHERE id = $1
       RETURNING enterprise, zero_data_retention_enabled`,
      [teamId, features.enterprise ?? null, features.zeroDataRetention ?? null],
    );
    const r = rows[0];
    return r && { enterprise: r.enterprise, zeroDataRetention: r.zero_data_retention_enabled };
  }

  async setWebhookSecret(teamId: string, secret: string, q: Queryable = this.db): Promise<boolean> {
    const res = await q.query('UPDATE gateway.teams SET webhook_secret = $2 WHERE id = $1', [teamId, secret]);
    return (res.rowCount ?? 0) > 0;
  }
}
