-- How many times a finished job was reopened (a batch appended to after it completed). Lifecycle
-- events of each round get their own webhookId, so a second `completed` is a new delivery.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS reopened integer NOT NULL DEFAULT 0;
