-- Upgrades a version 1 inbox table to version 2 in place (run by createSchemaIfMissing() when the
-- table lacks purge_after or still lets it be null, under the schema lock). Version 1 rows did not
-- record their writer's grace: they get the grace of the instance that upgrades. MySQL commits
-- each DDL statement; a run cut short is finished by the next createSchemaIfMissing(), which then
-- skips the first statement when the column exists but is still nullable (the UPDATE only fills
-- what is empty).

ALTER TABLE ${inbox} ADD COLUMN purge_after DATETIME(6) NULL AFTER expires_at;
UPDATE ${inbox} SET purge_after = expires_at + INTERVAL ${grace_us} MICROSECOND WHERE purge_after IS NULL;
ALTER TABLE ${inbox} MODIFY purge_after DATETIME(6) NOT NULL, ADD KEY ${inbox_purge_index} (purge_after), DROP KEY ${inbox_expires_index};
