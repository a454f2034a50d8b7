-- Change tracking (the `changeTracking` format): the latest snapshot of a page per team, URL and tag.
-- Kept until the team's snapshots are deleted (no expiry: "what changed since last time" may span
-- months). Never written for zero-data-retention scrapes. `tag` is '' for the untagged history.
CREATE TABLE scraper.change_snapshots (
  team_id text NOT NULL,
  url text NOT NULL,
  tag text NOT NULL DEFAULT '',
  -- When the snapshot's content was fetched (a cached copy keeps its fetch time).
  scraped_at timestamptz NOT NULL,
  job_id uuid NOT NULL,
  markdown_gz bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, url, tag)
);
