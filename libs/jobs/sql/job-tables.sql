-- Page jobs (crawl, batch scrape) and their pages: the table layout JobStore (@wds/jobs) reads and
-- writes, in the schema of the service that owns the jobs (search_path is set to it). Services
-- link this file into their migrations (see libs/jobs/README.md). IF NOT EXISTS because databases
-- migrated before this file existed got the same tables from the services' own 0002 migration.

CREATE TABLE IF NOT EXISTS jobs (
  id uuid PRIMARY KEY,
  team_id text NOT NULL,
  kind text NOT NULL,
  status text NOT NULL DEFAULT 'scraping' CHECK (status IN ('scraping', 'completed', 'failed', 'cancelled')),
  url text NOT NULL,
  -- The validated public request; scrape options for every page live here, not in the messages.
  options jsonb NOT NULL,
  page_limit integer NOT NULL,
  concurrency integer NOT NULL CHECK (concurrency >= 1),
  delay_ms integer NOT NULL DEFAULT 0,
  webhook jsonb,
  zero_data_retention boolean NOT NULL DEFAULT false,
  -- Pages in job_pages (the frontier and the visited set together).
  discovered integer NOT NULL DEFAULT 0,
  succeeded integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  -- Pages published as tasks and not finished; at most `concurrency`.
  inflight integer NOT NULL DEFAULT 0,
  credits_used bigint NOT NULL DEFAULT 0,
  -- False until the job's start pages are known (crawl: robots.txt and sitemaps read; batch: URLs inserted).
  seeded boolean NOT NULL DEFAULT false,
  robots_txt text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Last time a page finished or pages were added: the watchdog's measure of progress.
  progressed_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_active ON jobs (team_id, created_at) WHERE status = 'scraping';
CREATE INDEX IF NOT EXISTS jobs_running ON jobs (progressed_at) WHERE status = 'scraping';
CREATE INDEX IF NOT EXISTS jobs_expiry ON jobs (expires_at);

CREATE TABLE IF NOT EXISTS job_pages (
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  -- Normalised de-duplication key of the URL: one row per (job, key), ever.
  url_key text NOT NULL,
  id bigserial NOT NULL,
  url text NOT NULL,
  depth integer NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'dispatched', 'done', 'failed', 'cancelled')),
  dispatched_at timestamptz,
  dispatches integer NOT NULL DEFAULT 0,
  -- 1..succeeded in completion order: status pages read documents by this sequence.
  done_seq integer,
  document text,
  doc_bytes integer,
  credits integer NOT NULL DEFAULT 0,
  error text,
  error_code text,
  finished_at timestamptz,
  PRIMARY KEY (job_id, url_key)
);
CREATE INDEX IF NOT EXISTS job_pages_queued ON job_pages (job_id, depth, id) WHERE status = 'queued';
CREATE INDEX IF NOT EXISTS job_pages_done ON job_pages (job_id, done_seq) WHERE done_seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS job_pages_dispatched ON job_pages (dispatched_at) WHERE status = 'dispatched';
CREATE INDEX IF NOT EXISTS job_pages_failed ON job_pages (job_id) WHERE status = 'failed';

-- URLs left out because robots.txt disallows them (GET .../errors `robotsBlocked`; crawls only).
CREATE TABLE IF NOT EXISTS job_blocked (
  job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  url text NOT NULL,
  PRIMARY KEY (job_id, url)
);
