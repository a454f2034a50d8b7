-- Claims pick, per destination, its oldest claimable rows (so a dead receiver's backlog never
-- crowds out other destinations), and the phase gate looks only at a job's pending rows.
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (destination, next_attempt_at, serial) WHERE status = 'pending';
CREATE INDEX deliveries_pending_phase ON deliveries (job_id, phase) WHERE status = 'pending';
