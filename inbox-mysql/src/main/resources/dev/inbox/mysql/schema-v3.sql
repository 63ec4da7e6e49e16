-- inbox schema, version 3, for MySQL 8.0+ and MariaDB 10.6+ (InnoDB).
-- ${inbox} and ${sequences} stand for the configured (optionally schema-qualified) table names.
-- Keys are VARBINARY: compared byte for byte, no collation, no case or accent folding, no PAD SPACE;
-- the store rejects keys over 512 bytes before writing, so nothing is ever truncated.
-- Times are UTC_TIMESTAMP(6) of the server.
-- Version 2 adds purge_after: the grace belongs to each record, set by the instance that wrote it,
-- so an instance built with a shorter grace never removes (or takes) a record inside another's.
-- Version 3 adds result: the bytes a handler's result is kept as, with its COMPLETED record.
-- Older tables are upgraded by upgrade-v1-to-v2.sql and upgrade-v2-to-v3.sql, which
-- createSchemaIfMissing() runs.

CREATE TABLE IF NOT EXISTS ${inbox} (
    consumer    VARBINARY(512) NOT NULL,
    dedup_key   VARBINARY(512) NOT NULL,
    owner_token VARBINARY(64)  NOT NULL,
    state       TINYINT        NOT NULL, -- 0 IN_PROGRESS, 1 COMPLETED
    expires_at  DATETIME(6)    NOT NULL, -- UTC end of the lease or of the retention
    purge_after DATETIME(6)    NOT NULL, -- expires_at + the writer's grace: absent from then on
    fingerprint VARBINARY(128) NULL,
    result      MEDIUMBLOB     NULL, -- the handler's result kept by a COMPLETED record (version 3)
    PRIMARY KEY (consumer, dedup_key),
    KEY ${inbox_purge_index} (purge_after)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS ${sequences} (
    consumer VARBINARY(512) NOT NULL,
    entity   VARBINARY(512) NOT NULL,
    last_seq BIGINT         NOT NULL,
    PRIMARY KEY (consumer, entity)
) ENGINE = InnoDB;
