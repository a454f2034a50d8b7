-- Given-up deliveries can be sent again (POST /v2/webhooks/deliveries/resend, the admin re-queue):
-- the retry schedule then starts over from the attempts made so far (retry_base), while the
-- attempt numbers and the history go on.
ALTER TABLE deliveries
  ADD COLUMN retry_base integer NOT NULL DEFAULT 0,
  ADD COLUMN requeues integer NOT NULL DEFAULT 0,
  ADD COLUMN requeued_at timestamptz;
-- The admin re-queue picks a team's failed deliveries by when they gave up.
CREATE INDEX deliveries_team_failed ON deliveries (team_id, finished_at) WHERE status = 'failed';
