-- inbox schema, version 1, for MySQL 8.0+ and MariaDB 10.6+ (InnoDB).
-- ${inbox} and ${sequences} stand for the configured (optionally schema-qualified) table names.
-- Keys are VARBINARY: compared byte for byte, no collation, no case or accent folding, no PAD SPACE;
-- the store rejects keys over 512 bytes before writing, so nothing is ever truncated.
-- Times are UTC_TIMESTAMP(6) of the server.

CREATE TABLE IF NOT EXISTS ${inbox} (
    consumer    VARBINARY(512) NOT NULL,
    dedup_key   VARBINARY(512) NOT NULL,
    owner_token VARBINARY(64)  NOT NULL,
    state       TINYINT        NOT NULL, -- 0 IN_PROGRESS, 1 COMPLETED
    expires_at  DATETIME(6)    NOT NULL, -- UTC end of the lease or of the retention
    fingerprint VARBINARY(128) NULL,
    PRIMARY KEY (consumer, dedup_key),
    KEY ${inbox_expires_index} (expires_at)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS ${sequences} (
    consumer VARBINARY(512) NOT NULL,
    entity   VARBINARY(512) NOT NULL,
    last_seq BIGINT         NOT NULL,
    PRIMARY KEY (consumer, entity)
) ENGINE = InnoDB;
