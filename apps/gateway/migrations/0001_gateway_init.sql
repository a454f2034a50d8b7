-- Gateway state: teams, their API keys and the cross-replica rate/concurrency bookkeeping.
CREATE SCHEMA IF NOT EXISTS gateway;

CREATE TABLE gateway.teams (
  id uuid PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- The team the operator's WDS_BOOTSTRAP_API_KEY belongs to; at most one exists.
  is_bootstrap boolean NOT NULL DEFAULT false,
  enterprise boolean NOT NULL DEFAULT false,
  zero_data_retention_enabled boolean NOT NULL DEFAULT false,
  requests_per_minute integer NOT NULL DEFAULT 600 CHECK (requests_per_minute > 0),
  max_concurrency integer NOT NULL DEFAULT 50 CHECK (max_concurrency > 0),
  max_browser_sessions integer NOT NULL DEFAULT 5 CHECK (max_browser_sessions >= 0),
  webhook_secret text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX teams_single_bootstrap ON gateway.teams (is_bootstrap) WHERE is_bootstrap;

CREATE TABLE gateway.api_keys (
  -- Public, non-secret part of the key used to find the row; the secret is only ever hashed.
  prefix text PRIMARY KEY,
  key_sha256 bytea NOT NULL CHECK (length(key_sha256) = 32),
  team_id uuid NOT NULL REFERENCES gateway.teams (id) ON DELETE CASCADE,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_team ON gateway.api_keys (team_id);

-- Shared with rate-limiter-flexible's RateLimiterPostgres (its own column layout).
CREATE TABLE gateway.rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- One row per in-flight request; a gateway renews its leases while the request runs, so a crashed
-- replica's slots come free when they expire.
CREATE TABLE gateway.concurrency_leases (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES gateway.teams (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX concurrency_leases_team ON gateway.concurrency_leases (team_id, expires_at);
