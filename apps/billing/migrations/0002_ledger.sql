-- Credits ledger: balances, an append-only journal and per-request reservations.
CREATE SCHEMA IF NOT EXISTS billing;

CREATE TABLE billing.accounts (
  team_id text PRIMARY KEY,
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE billing.reservations (
  id uuid PRIMARY KEY,
  team_id text NOT NULL,
  -- The caller's idempotency handle (Idempotency-Key header or request id): one reservation per team and key.
  request_key text NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  charged bigint NOT NULL DEFAULT 0 CHECK (charged >= 0),
  -- Credits that could not be collected at settle time because the balance ran out.
  shortfall bigint NOT NULL DEFAULT 0 CHECK (shortfall >= 0),
  status text NOT NULL CHECK (status IN ('reserved', 'settled', 'released')),
  -- Bumped when a released reservation is reserved again by a retry of the same request.
  attempt integer NOT NULL DEFAULT 1,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  UNIQUE (team_id, request_key)
);
CREATE INDEX reservations_expiry ON billing.reservations (expires_at) WHERE status = 'reserved';

CREATE TABLE billing.ledger_entries (
  id bigserial PRIMARY KEY,
  team_id text NOT NULL,
  delta bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('grant', 'reserve', 'settle', 'release')),
  reason text,
  reservation_id uuid REFERENCES billing.reservations (id),
  idempotency_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_team ON billing.ledger_entries (team_id, created_at);
