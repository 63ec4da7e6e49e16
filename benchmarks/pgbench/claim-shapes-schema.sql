SET client_min_messages = warning;
-- Tables for claim-shapes.sh: the store's table as schema-v3.sql makes it, the same without the
-- purge_after index, a narrower row, and Spring Integration's INT_METADATA_STORE.
DROP TABLE IF EXISTS shape_si, shape_inbox, shape_nopurge, shape_narrow;
CREATE TABLE shape_inbox (
    consumer    text COLLATE "C" NOT NULL CHECK (octet_length(consumer) BETWEEN 1 AND 512),
    dedup_key   text COLLATE "C" NOT NULL CHECK (octet_length(dedup_key) BETWEEN 1 AND 512),
    owner_token text COLLATE "C" NOT NULL,
    state       smallint         NOT NULL CHECK (state IN (0, 1)),
    expires_at  timestamptz      NOT NULL,
    purge_after timestamptz      NOT NULL,
    fingerprint text COLLATE "C",
    result      bytea,
    PRIMARY KEY (consumer, dedup_key)
);
CREATE INDEX shape_inbox_purge ON shape_inbox (purge_after);
CREATE TABLE shape_nopurge (LIKE shape_inbox INCLUDING CONSTRAINTS);
ALTER TABLE shape_nopurge ADD PRIMARY KEY (consumer, dedup_key);
CREATE TABLE shape_narrow (
    consumer    text COLLATE "C" NOT NULL,
    dedup_key   text COLLATE "C" NOT NULL,
    owner_token text COLLATE "C" NOT NULL,
    state       smallint         NOT NULL,
    expires_at  timestamptz      NOT NULL,
    PRIMARY KEY (consumer, dedup_key)
);
CREATE TABLE shape_si (
    METADATA_KEY VARCHAR(255) NOT NULL,
    METADATA_VALUE VARCHAR(4000),
    REGION VARCHAR(100) NOT NULL,
    CONSTRAINT shape_si_pk PRIMARY KEY (METADATA_KEY, REGION)
);
