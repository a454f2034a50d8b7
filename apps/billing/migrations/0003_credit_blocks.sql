-- Credit blocks: a reservation of kind 'block' is held by a replica that spends it locally and reports
-- usage in batches (see apps/billing/README.md). Usage rows are the per-request record of what was
-- charged, idempotent per (team, key).
ALTER TABLE billing.reservations
  ADD COLUMN kind text NOT NULL DEFAULT 'request' CHECK (kind IN ('request', 'block'));

CREATE TABLE billing.usage (
  team_id text NOT NULL,
  usage_key text NOT NULL,
  reservation_id uuid NOT NULL REFERENCES billing.reservations (id),
  amount bigint NOT NULL CHECK (amount >= 0),
  endpoint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, usage_key)
);
CREATE INDEX usage_team_time ON billing.usage (team_id, created_at);
CREATE INDEX usage_reservation ON billing.usage (reservation_id);
-- Open blocks of a team, for the balance (their unused credits still count as the team's).
CREATE INDEX reservations_open_blocks ON billing.reservations (team_id) WHERE kind = 'block' AND status = 'reserved';
