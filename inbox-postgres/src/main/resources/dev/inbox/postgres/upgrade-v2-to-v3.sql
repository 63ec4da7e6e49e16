-- Upgrades a version 2 inbox table to version 3 in place (run by createSchemaIfMissing() when the
-- table lacks result, under the schema lock). A nullable column without default: PostgreSQL adds
-- it without rewriting the table, and existing records keep no result.

ALTER TABLE ${inbox} ADD COLUMN IF NOT EXISTS result bytea;
