-- The live log of agent jobs (GET /v2/agent/{id} while it runs, GET /v2/agent/{id}/trace): each run
-- of a job's browser agent (a task that is run again after a lost worker or browser-pool replica
-- starts a new run) and each step of it, recorded as the browser pool reports it. Zero-data-retention
-- jobs keep nothing here. Rows go with their job (ON DELETE CASCADE, when it expires).
CREATE TABLE agent_runs (
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  run_id uuid NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, run_id)
);

CREATE TABLE agent_steps (
  job_id uuid NOT NULL,
  run_id uuid NOT NULL,
  step integer NOT NULL,
  -- The step as the browser agent logged it (AgentStep: action, target, value, outcome, detail, url, ms, at).
  body jsonb NOT NULL,
  PRIMARY KEY (job_id, run_id, step),
  FOREIGN KEY (job_id, run_id) REFERENCES agent_runs (job_id, run_id) ON DELETE CASCADE
);

-- GET /v2/agent: a team's jobs of one kind, newest first.
CREATE INDEX jobs_team_kind_created ON jobs (team_id, kind, created_at DESC);
