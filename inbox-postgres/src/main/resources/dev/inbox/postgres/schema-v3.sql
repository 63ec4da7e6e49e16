-- inbox schema, version 3, for PostgreSQL 12 or newer.
-- ${inbox} and ${sequences} stand for the configured (optionally schema-qualified) table names.
-- Keys use the "C" collation: comparison is byte-exact and the primary key index is byte-ordered.
-- Version 2 adds purge_after: the grace belongs to each record, set by the instance that wrote it,
-- so an instance built with a shorter grace never removes (or takes) a record inside another's.
-- Version 3 adds result: the bytes a handler's result is kept as, with its COMPLETED record.
-- Older tables are upgraded by upgrade-v1-to-v2.sql and upgrade-v2-to-v3.sql, which
-- createSchemaIfMissing() runs.

CREATE TABLE IF NOT EXISTS ${inbox} (
    consumer    text COLLATE "C" NOT NULL CHECK (octet_length(consumer) BETWEEN 1 AND 512),
    dedup_key   text COLLATE "C" NOT NULL CHECK (octet_length(dedup_key) BETWEEN 1 AND 512),
    owner_token text COLLATE "C" NOT NULL,
    state       smallint         NOT NULL CHECK (state IN (0, 1)), -- 0 IN_PROGRESS, 1 COMPLETED
    expires_at  timestamptz      NOT NULL, -- end of the lease (IN_PROGRESS) or of the retention (COMPLETED)
    purge_after timestamptz      NOT NULL, -- expires_at + the writer's grace: absent from then on
    fingerprint text COLLATE "C",
    result      bytea, -- the handler's result kept by a COMPLETED record, or NULL (version 3)
    PRIMARY KEY (consumer, dedup_key)
);

-- Serves purge: DELETE … WHERE purge_after <= now(), oldest first, in bounded batches.
CREATE INDEX IF NOT EXISTS ${inbox_purge_index} ON ${inbox} (purge_after);

CREATE TABLE IF NOT EXISTS ${sequences} (
    consumer text COLLATE "C" NOT NULL,
    entity   text COLLATE "C" NOT NULL,
    last_seq bigint           NOT NULL,
    PRIMARY KEY (consumer, entity)
);
