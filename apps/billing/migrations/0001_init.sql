-- The "billing" schema, owned by the billing service, is created by the migration runner
-- (CREATE SCHEMA IF NOT EXISTS) before this file runs, with search_path set to it.
-- Tables arrive in later migrations together with the features that need them.
SELECT 1;
