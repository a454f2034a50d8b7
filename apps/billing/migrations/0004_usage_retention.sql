-- The sweeper deletes usage rows past WDS_USAGE_RETENTION_DAYS by age.
CREATE INDEX usage_created ON billing.usage (created_at);
