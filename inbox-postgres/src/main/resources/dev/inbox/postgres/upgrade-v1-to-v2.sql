-- Upgrades a version 1 inbox table to version 2 in place (run by createSchemaIfMissing() when the
-- table lacks purge_after, under the schema lock, in one transaction). Version 1 rows did not
-- record their writer's grace: they get the grace of the instance that upgrades.

ALTER TABLE ${inbox} ADD COLUMN IF NOT EXISTS purge_after timestamptz;
UPDATE ${inbox} SET purge_after = expires_at + ${grace_us} * interval '1 microsecond' WHERE purge_after IS NULL;
ALTER TABLE ${inbox} ALTER COLUMN purge_after SET NOT NULL;
CREATE INDEX IF NOT EXISTS ${inbox_purge_index} ON ${inbox} (purge_after);
DROP INDEX IF EXISTS ${inbox_expires_index_qualified};
