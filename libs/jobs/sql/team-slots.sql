-- Team-wide concurrency across all page jobs of a team, whichever service runs them (crawler,
-- batch): one shared "jobs" schema in the common database, owned by @wds/jobs. Every service that
-- links this file applies it; the lock below serialises services migrating at the same moment
-- (their own migration locks are per schema).
SELECT pg_advisory_xact_lock(hashtext('wds.migrations.jobs'));

CREATE SCHEMA IF NOT EXISTS jobs;

-- The team's limit of pages in flight across all its jobs; the latest job creation sets it.
-- Claims of a team's pages lock this row, so the limit holds across services and replicas.
CREATE TABLE IF NOT EXISTS jobs.team_limits (
  team_id text PRIMARY KEY,
  max_inflight integer NOT NULL CHECK (max_inflight >= 1),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per running job that holds or wants team slots: its pages in flight and, while the team
-- limit holds pages of it back, since when it waits (the oldest waiter is served first). A row
-- counts only while its lease is valid: the owning service renews it (watchdog), so the slots of
-- a job whose service is gone come back when the lease runs out.
CREATE TABLE IF NOT EXISTS jobs.team_jobs (
  job_id uuid PRIMARY KEY,
  team_id text NOT NULL,
  kind text NOT NULL,
  inflight integer NOT NULL DEFAULT 0 CHECK (inflight >= 0),
  wait_since timestamptz,
  lease_until timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS team_jobs_team ON jobs.team_jobs (team_id);
CREATE INDEX IF NOT EXISTS team_jobs_waiting ON jobs.team_jobs (wait_since) WHERE wait_since IS NOT NULL;
