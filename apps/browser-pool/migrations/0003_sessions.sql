-- Live browser sessions (POST /v2/browser, interact). A session lives on one replica; the row is the
-- record that outlives it (GET /v2/browser?status=destroyed, billing settled exactly once).
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  team_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'destroyed')),
  replica_id text NOT NULL,
  scrape_job_id uuid,
  stream_web_view boolean NOT NULL,
  ttl_seconds int NOT NULL,
  activity_ttl_seconds int NOT NULL,
  -- secret of the session's cdpUrl and live views; erased when the session ends
  token text,
  profile jsonb,
  reservation_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_activity timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  end_reason text,
  duration_ms bigint,
  credits_billed int,
  -- set once the credits ledger recorded the charge (retried until then)
  billed_at timestamptz
);
-- One session per scrape, ever: after it ends, interact on the scrape answers 410.
CREATE UNIQUE INDEX sessions_scrape_job ON sessions (scrape_job_id) WHERE scrape_job_id IS NOT NULL;
CREATE INDEX sessions_team ON sessions (team_id, created_at DESC);
CREATE INDEX sessions_active_replica ON sessions (replica_id) WHERE status = 'active';
CREATE INDEX sessions_unbilled ON sessions (ended_at) WHERE status = 'destroyed' AND billed_at IS NULL;

-- Replicas serving sessions and when they were last seen: a replica silent for long has died and its
-- sessions are ended (and billed) by the others.
CREATE TABLE session_replicas (
  id text PRIMARY KEY,
  endpoint text NOT NULL,
  seen_at timestamptz NOT NULL
);
