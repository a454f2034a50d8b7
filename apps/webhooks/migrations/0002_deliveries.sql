-- The delivery outbox: one row per webhook event to deliver (id = webhookId), written idempotently
-- from the WDS_EVENTS_V1 consumer and worked off by every replica's delivery loop.
CREATE TABLE deliveries (
  webhook_id uuid PRIMARY KEY,
  -- Arrival order; the last tiebreaker of a job's delivery order.
  serial bigserial NOT NULL UNIQUE,
  team_id text NOT NULL,
  job_id uuid NOT NULL,
  type text NOT NULL,
  url text NOT NULL,
  -- scheme://host:port of url: the unit of the per-destination concurrency cap.
  destination text NOT NULL,
  -- Delivery order within a job: phase (0 started, 1 page, 2 completed/failed), producer seq, serial.
  phase smallint NOT NULL,
  seq bigint NOT NULL DEFAULT 0,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The exact bytes POSTed (and signed) on every attempt.
  body bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Set while a replica is attempting the delivery; an expired lease (crashed replica) frees the row.
  leased_until timestamptz,
  leased_by text,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  finished_at timestamptz
);

CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_job_order ON deliveries (job_id, phase, seq, serial);
CREATE INDEX deliveries_leased ON deliveries (destination) WHERE status = 'pending' AND leased_until IS NOT NULL;
CREATE INDEX deliveries_finished ON deliveries (finished_at) WHERE status <> 'pending';

CREATE TABLE delivery_attempts (
  webhook_id uuid NOT NULL REFERENCES deliveries (webhook_id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now(),
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (webhook_id, attempt)
);
