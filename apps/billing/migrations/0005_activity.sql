-- Team activity (one row per billable public call), LLM token usage events and monthly usage per
-- API key. Fed by the WDS_ACTIVITY_V1 stream (activity, tokens) and by usage reports (credits).

-- Order of recording: the snapshot a listing's cursor carries (rows recorded after it are left out
-- of that listing, so pages never skip or repeat an item while new ones arrive).
CREATE SEQUENCE billing.activity_seq;

-- Daily partitions (billing creates them ahead and drops those past WDS_ACTIVITY_RETENTION_DAYS):
-- a 24 h page reads at most two, and the purge is a DROP, not a DELETE of millions of rows.
CREATE TABLE billing.activity (
  team_id text NOT NULL,
  created_at timestamptz NOT NULL,
  id text NOT NULL,
  event_id text NOT NULL,
  seq bigint NOT NULL DEFAULT nextval('billing.activity_seq'),
  endpoint text NOT NULL,
  api_version text NOT NULL,
  target text,
  api_key text,
  credits bigint NOT NULL DEFAULT 0,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  -- Idempotency: an event id is recorded once (publishers keep createdAt stable per event id).
  UNIQUE (event_id, created_at)
) PARTITION BY RANGE (created_at);
CREATE INDEX activity_team_time ON billing.activity (team_id, created_at DESC, id DESC, seq DESC);
CREATE INDEX activity_team_endpoint_time ON billing.activity (team_id, endpoint, created_at DESC, id DESC, seq DESC);

-- The API key that started a job whose pages are charged later (crawl, batch...), so page usage is
-- counted for that key. Kept as long as activity.
CREATE TABLE billing.job_keys (
  job_id text PRIMARY KEY,
  team_id text NOT NULL,
  api_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_keys_created ON billing.job_keys (created_at);

-- Usage rows learn their key and job: page usage that arrived before its job's activity event is
-- attributed when the event arrives.
ALTER TABLE billing.usage ADD COLUMN api_key text, ADD COLUMN job_id text;
CREATE INDEX usage_unattributed ON billing.usage (job_id) WHERE api_key IS NULL AND job_id IS NOT NULL;

-- Credits and LLM tokens per team, UTC calendar month and API key ('' = no key), kept forever
-- (a few rows per team and month): historical usage survives the per-request rows' retention.
CREATE TABLE billing.usage_monthly (
  team_id text NOT NULL,
  month date NOT NULL,
  api_key text NOT NULL DEFAULT '',
  credits bigint NOT NULL DEFAULT 0,
  llm_input_tokens bigint NOT NULL DEFAULT 0,
  llm_output_tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (team_id, month, api_key)
);

-- LLM token events seen (idempotency by event id), purged with activity.
CREATE TABLE billing.token_events (
  event_id text PRIMARY KEY,
  team_id text NOT NULL,
  api_key text,
  endpoint text NOT NULL,
  job_id text,
  model text,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX token_events_recorded ON billing.token_events (recorded_at);

-- The key that signs activity cursors, shared by every billing replica.
CREATE TABLE billing.secrets (
  name text PRIMARY KEY,
  value bytea NOT NULL
);

-- Creates the activity partition of one UTC day if it is missing (safe when replicas race).
CREATE FUNCTION billing.ensure_activity_partition(day date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  name text := 'activity_' || to_char(day, 'YYYYMMDD');
BEGIN
  IF to_regclass('billing.' || name) IS NOT NULL THEN
    RETURN;
  END IF;
  BEGIN
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS billing.%I PARTITION OF billing.activity FOR VALUES FROM (%L) TO (%L)',
      name, (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
  EXCEPTION WHEN duplicate_table OR unique_violation THEN
    -- Another replica created it at the same moment.
    NULL;
  END;
END $$;

-- Usage recorded before this migration counts in its month, without a key.
INSERT INTO billing.usage_monthly (team_id, month, api_key, credits)
SELECT team_id, date_trunc('month', created_at AT TIME ZONE 'UTC')::date, '', sum(amount)
FROM billing.usage GROUP BY 1, 2;
