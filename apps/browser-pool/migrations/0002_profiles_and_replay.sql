-- Browser profiles: cookies and localStorage (Playwright storage state) per team and profile name.
CREATE TABLE profiles (
  team_id text NOT NULL,
  name text NOT NULL,
  storage_state jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team_id, name)
);

-- What a browser-capable scrape needs to rebuild its page state later (interact), until it expires.
CREATE TABLE replay_contexts (
  job_id uuid PRIMARY KEY,
  team_id text NOT NULL,
  url text NOT NULL,
  options jsonb NOT NULL,
  actions jsonb NOT NULL,
  profile jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX replay_contexts_expires_at ON replay_contexts (expires_at);
