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

-- Threads of agent jobs (`threadId`): each job starts one, or continues the one it names. `turns`
-- numbers its runs; `running_job` is its latest run, and a thread takes a new run only once that
-- one has ended. A thread goes once its runs have expired (AgentLog.openThread purges them).
CREATE TABLE agent_threads (
  id uuid PRIMARY KEY,
  team_id text NOT NULL,
  turns integer NOT NULL,
  running_job uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_threads_updated ON agent_threads (updated_at);

-- A thread's runs (GET /v2/agent/threads/{threadId}, the earlier turns a run is told).
CREATE INDEX jobs_agent_thread ON jobs ((options ->> 'threadId')) WHERE kind = 'agent';
