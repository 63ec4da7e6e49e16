-- Upgrades a version 2 inbox table to version 3 in place (run by createSchemaIfMissing() when the
-- table lacks result, under the schema lock). A nullable last column: MySQL 8.0.12+ and MariaDB
-- 10.3+ add it instantly, without copying the table; existing records keep no result.

ALTER TABLE ${inbox} ADD COLUMN result MEDIUMBLOB NULL;
