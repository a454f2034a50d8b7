-- The browser state (Playwright storage state: cookies and localStorage) an agent thread's last run
-- left, per team and thread: the next turn starts with it. Kept until the thread's newest job
-- expires; expired rows are deleted as states are saved.
CREATE TABLE agent_thread_states (
  team_id text NOT NULL,
  thread_id uuid NOT NULL,
  storage_state jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (team_id, thread_id)
);
CREATE INDEX agent_thread_states_expiry ON agent_thread_states (expires_at);
