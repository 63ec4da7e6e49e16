#!/usr/bin/env bash
# Where a new event's cost goes on PostgreSQL, server side: the store's claim statement beside
# Spring Integration's putIfAbsent INSERT and beside the same statement with one thing taken away
# (the purge_after index, the read-back branch, the wider row), each a pgbench run of new keys.
# Rounds are interleaved (every variant once per round) and the median tps of the rounds is kept,
# because this two-core machine drifts by 20 % between back-to-back runs.
#
#   benchmarks/pgbench/claim-shapes.sh > benchmarks/results/pg-claim-shapes.txt
#
# Environment: PGHOST (127.0.0.1), PGUSER (postgres), PGDATABASE (test), ROUNDS (5), RUN_SECONDS (8),
# CLIENTS ("1 4"). Every session runs with synchronous_commit=off, as the JMH runs do.
set -euo pipefail
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres} PGDATABASE=${PGDATABASE:-test}
ROUNDS=${ROUNDS:-5}
SECONDS_EACH=${RUN_SECONDS:-8}
CLIENTS=${CLIENTS:-1 4}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'psql -q -c "DROP TABLE IF EXISTS shape_si, shape_inbox, shape_nopurge, shape_narrow" >/dev/null 2>&1; rm -rf "$work"' EXIT

psql -q -v ON_ERROR_STOP=1 -f "$here/claim-shapes-schema.sql" >/dev/null

# The store's claim of a new key (PostgresStatements.claimIfAbsent, lease mode, as pgjdbc sends it).
inbox_claim() {
  cat <<SQL
\set k random(1, 2000000000)
WITH taken AS (INSERT INTO $1 (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint) VALUES ('peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13', 'k-' || :k, 'Vq3bX0yJ6cTzWm1rL8nF2g', 0, clock_timestamp() + 300000000 * interval '1 microsecond', clock_timestamp() + (300000000 + 3600000000) * interval '1 microsecond', NULL) ON CONFLICT (consumer, dedup_key) DO NOTHING RETURNING 1) SELECT true AS taken, NULL, NULL::smallint, NULL::boolean, NULL::boolean, NULL, NULL::bytea, NULL::bigint FROM taken UNION ALL SELECT false, e.owner_token, e.state, e.expires_at <= clock_timestamp() AS expired, e.purge_after <= clock_timestamp() AS gone, e.fingerprint, e.result, (extract(epoch FROM clock_timestamp() - e.expires_at) * 1000000)::bigint FROM $1 AS e WHERE e.consumer = 'peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13' AND e.dedup_key = 'k-' || :k AND NOT EXISTS (SELECT 1 FROM taken);
SQL
}
# The same row, inserted without reading anything back.
insert_only() {
  cat <<SQL
\set k random(1, 2000000000)
INSERT INTO $1 (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint) VALUES ('peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13', 'k-' || :k, 'Vq3bX0yJ6cTzWm1rL8nF2g', 0, clock_timestamp() + 300000000 * interval '1 microsecond', clock_timestamp() + (300000000 + 3600000000) * interval '1 microsecond', NULL) ON CONFLICT (consumer, dedup_key) DO NOTHING;
SQL
}
inbox_claim shape_inbox > "$work/inbox.sql"
inbox_claim shape_nopurge > "$work/inbox-no-purge-index.sql"
insert_only shape_inbox > "$work/insert-only.sql"
insert_only shape_nopurge > "$work/insert-only-no-purge-index.sql"
cat > "$work/narrow-insert-only.sql" <<'SQL'
\set k random(1, 2000000000)
INSERT INTO shape_narrow (consumer, dedup_key, owner_token, state, expires_at) VALUES ('peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13', 'k-' || :k, 'Vq3bX0yJ6cTzWm1rL8nF2g', 0, clock_timestamp() + 300000000 * interval '1 microsecond') ON CONFLICT (consumer, dedup_key) DO NOTHING;
SQL
# Spring Integration's JdbcMetadataStore.putIfAbsent: for a new key, this one statement.
cat > "$work/spring-integration.sql" <<'SQL'
\set k random(1, 2000000000)
INSERT INTO shape_si (METADATA_KEY, METADATA_VALUE, REGION) SELECT 'k-' || :k, '1', 'peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13' FROM shape_si WHERE METADATA_KEY = 'k-' || :k AND REGION = 'peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13' HAVING COUNT(*) = 0 ON CONFLICT DO NOTHING;
SQL
variants="spring-integration inbox inbox-no-purge-index insert-only insert-only-no-purge-index narrow-insert-only"

echo "# PostgreSQL $(psql -Atc 'SHOW server_version'), pgbench -M prepared, new keys, ${SECONDS_EACH} s per run,"
echo "# median tps of $ROUNDS interleaved rounds (each round listed after it), $(date -u +%Y-%m-%dT%H:%MZ)"
for clients in $CLIENTS; do
  for round in $(seq "$ROUNDS"); do
    for v in $variants; do
      psql -q -c "TRUNCATE shape_si, shape_inbox, shape_nopurge, shape_narrow"
      tps=$(PGOPTIONS="-c synchronous_commit=off" pgbench -n -M prepared -c "$clients" -j "$clients" \
        -T "$SECONDS_EACH" -f "$work/$v.sql" 2>/dev/null | awk '/^tps/ {print int($3)}')
      echo "$clients $v $tps" >> "$work/runs"
    done
  done
done
awk -v unit=tps -v width=28 -f "$here/../median-of-rounds.awk" "$work/runs" | sort -k1,1 -k4,4nr
