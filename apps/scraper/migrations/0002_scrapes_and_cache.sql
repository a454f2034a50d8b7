-- Scrape jobs (one row per POST /v2/scrape or page scrape) and the page cache/index.
-- Documents are stored as gzip-compressed JSON: HTML-heavy documents shrink 5-10x and a stored
-- document can be streamed to the gateway in byte chunks (NATS messages are capped at 1 MiB).

CREATE TABLE scraper.scrapes (
  id uuid PRIMARY KEY,
  team_id text NOT NULL,
  -- NULL under zero data retention (and lockdown, which implies it): the URL is not kept.
  url text,
  status text NOT NULL CHECK (status IN ('completed', 'failed')),
  error_code text,
  status_code integer,
  document_gz bytea,
  document_bytes integer,
  credits_used integer NOT NULL DEFAULT 0,
  cache_hit boolean NOT NULL DEFAULT false,
  proxy_used text,
  zero_data_retention boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

CREATE INDEX scrapes_expires_at_idx ON scraper.scrapes (expires_at);
CREATE INDEX scrapes_team_created_idx ON scraper.scrapes (team_id, created_at DESC);

-- One entry per cache key (URL + every option that changes the output); a fresh scrape replaces it.
CREATE TABLE scraper.cache_entries (
  cache_key text PRIMARY KEY,
  url text NOT NULL,
  document_gz bytea NOT NULL,
  -- What a cache hit of this document costs (1 for a page, the page count for a parsed PDF).
  content_credits integer NOT NULL,
  fetched_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX cache_entries_expires_at_idx ON scraper.cache_entries (expires_at);
