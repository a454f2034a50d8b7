-- Deliveries of zero-data-retention jobs: their body (which carries documents) is erased, and
-- body_erased_at set, as soon as the delivery is final (delivered or given up). The row stays, so
-- the delivery log still lists the delivery and its attempts until the retention purge.
ALTER TABLE deliveries
  ADD COLUMN zero_data_retention boolean NOT NULL DEFAULT false,
  ADD COLUMN body_erased_at timestamptz;
