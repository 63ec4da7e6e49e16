#!/usr/bin/env bash
# Where a new event's cost goes on MySQL/MariaDB, server side: the store's claim statement beside
# the raw INSERT IGNORE the JMH benchmark compares it with (MysqlClaimBenchmark), beside a short
# claim that reports only "conflict", and the same for a batch of 100 keys, and the claim of a key
# already completed (a duplicate) beside INSERT IGNORE of it; each a mariadb-slap
# (or mysqlslap) run of new keys, sent as text as Connector/J's client-side prepared statements
# send them. Rounds are interleaved (every variant once per round) and the median rate of the rounds
# is kept, because this two-core machine drifts by 20 % between back-to-back runs.
#
#   benchmarks/mysql/claim-shapes.sh > benchmarks/results/mysql-claim-shapes.txt
#
# Environment: MYSQL_HOST (127.0.0.1), MYSQL_PORT (3306), MYSQL_USER (root), MYSQL_DATABASE (test),
# ROUNDS (5), QUERIES (single-key statements per run, 20000; a batch run sends a fiftieth of them),
# CLIENTS ("1 4"). The statements are written out here as MysqlStatements builds them (the
# store's claim: claim(1) and claim(100) with the parameters as literals).
set -euo pipefail
HOST=${MYSQL_HOST:-127.0.0.1} PORT=${MYSQL_PORT:-3306} USER=${MYSQL_USER:-root} DB=${MYSQL_DATABASE:-test}
ROUNDS=${ROUNDS:-5}
QUERIES=${QUERIES:-20000}
CLIENTS=${CLIENTS:-1 4}
SLAP=$(command -v mariadb-slap || command -v mysqlslap) || { echo "needs mariadb-slap or mysqlslap (Debian: mariadb-client)" >&2; exit 1; }
SQL=$(command -v mariadb || command -v mysql)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
sql() { "$SQL" -h "$HOST" -P "$PORT" -u "$USER" "$DB" -e "$1"; }
trap 'sql "DROP TABLE IF EXISTS shape_inbox, shape_nopurge" >/dev/null 2>&1; rm -rf "$work"' EXIT

sql "DROP TABLE IF EXISTS shape_inbox, shape_nopurge"
# The store's table as schema-v3.sql makes it, and the same without the purge_after index.
sql "CREATE TABLE shape_inbox (consumer VARBINARY(512) NOT NULL, dedup_key VARBINARY(512) NOT NULL,
  owner_token VARBINARY(64) NOT NULL, state TINYINT NOT NULL, expires_at DATETIME(6) NOT NULL,
  purge_after DATETIME(6) NOT NULL, fingerprint VARBINARY(128) NULL, result MEDIUMBLOB NULL,
  PRIMARY KEY (consumer, dedup_key), KEY shape_inbox_purge (purge_after)) ENGINE = InnoDB"
sql "CREATE TABLE shape_nopurge LIKE shape_inbox"
sql "ALTER TABLE shape_nopurge DROP INDEX shape_inbox_purge"

COLUMNS="(consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint)"
CONSUMER="_binary'peer-0f8a1c2e-5b7d-4e3a-9c61-2d4b8e7f0a13'"
OWNER="_binary'Vq3bX0yJ6cTzWm1rL8nF2g'"
# MysqlStatements.row(i): the first row resets LAST_INSERT_ID before the duplicate check.
key_expr="UUID()" # a new key for every statement; the duplicate variants set one key
row() { # <first: 1|0>
  local state=0; [ "$1" = 1 ] && state="0 + LAST_INSERT_ID(0)"
  echo "($CONSUMER, $key_expr, $OWNER, $state, UTC_TIMESTAMP(6) + INTERVAL 300000000 MICROSECOND, UTC_TIMESTAMP(6) + INTERVAL (300000000 + 3600000000) MICROSECOND, NULL)"
}
raw_row() { echo "($CONSUMER, $key_expr, $OWNER, 0, UTC_TIMESTAMP(6) + INTERVAL 300000000 MICROSECOND, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, NULL)"; }
rows() { # <n> <first-row flag>: n rows, the store's or (flag "raw") the benchmark's raw rows
  local out="" i
  for i in $(seq "$1"); do
    local r; if [ "$2" = raw ]; then r=$(raw_row); elif [ "$i" = 1 ]; then r=$(row 1); else r=$(row 0); fi
    out="$out${out:+, }$r"
  done
  echo "$out"
}
# MysqlStatements.CODE, ON_DUPLICATE and ON_DUPLICATE_IN_BATCH.
CODE="2 + 4 * state + 16 * (purge_after <= UTC_TIMESTAMP(6)) + 32 * (owner_token = VALUES(owner_token)) + 64 * IFNULL(2 - (fingerprint = VALUES(fingerprint)), 0) + 256 * (result IS NOT NULL) + 512 * (TIMESTAMPDIFF(MICROSECOND, expires_at, UTC_TIMESTAMP(6)) + 4503599627370496)"
ON_DUPLICATE=" ON DUPLICATE KEY UPDATE state = IF(LAST_INSERT_ID($CODE), state, state)"
ON_DUPLICATE_IN_BATCH=" ON DUPLICATE KEY UPDATE state = IF(LAST_INSERT_ID(LAST_INSERT_ID() + 1), state, state), fingerprint = IF(state = 0 AND owner_token = VALUES(owner_token) AND VALUES(fingerprint) IS NOT NULL, VALUES(fingerprint), fingerprint), expires_at = IF(state = 0 AND owner_token = VALUES(owner_token), VALUES(expires_at), expires_at), purge_after = IF(state = 0 AND owner_token = VALUES(owner_token), VALUES(purge_after), purge_after)"
# A claim that reports only that the key was there (LAST_INSERT_ID 1), its row left as it is.
ON_DUPLICATE_SHORT=" ON DUPLICATE KEY UPDATE state = IF(LAST_INSERT_ID(1), state, state)"

echo "INSERT INTO shape_inbox $COLUMNS VALUES $(rows 1 store)$ON_DUPLICATE" > "$work/claim.sql"
echo "INSERT INTO shape_nopurge $COLUMNS VALUES $(rows 1 store)$ON_DUPLICATE" > "$work/claim-no-purge-index.sql"
echo "INSERT INTO shape_inbox $COLUMNS VALUES $(rows 1 store)$ON_DUPLICATE_SHORT" > "$work/short-claim.sql"
echo "INSERT IGNORE INTO shape_inbox $COLUMNS VALUES $(rows 1 raw)" > "$work/insert-ignore.sql"
echo "INSERT IGNORE INTO shape_nopurge $COLUMNS VALUES $(rows 1 raw)" > "$work/insert-ignore-no-purge-index.sql"
echo "INSERT INTO shape_inbox $COLUMNS VALUES $(rows 100 store)$ON_DUPLICATE_IN_BATCH" > "$work/claimAll100.sql"
echo "INSERT IGNORE INTO shape_inbox $COLUMNS VALUES $(rows 100 raw)" > "$work/insert-ignore-100.sql"
key_expr="_binary'completed'"
echo "INSERT IGNORE INTO shape_inbox $COLUMNS VALUES $(rows 1 raw)" > "$work/insert-ignore-duplicate.sql"
echo "INSERT INTO shape_inbox $COLUMNS VALUES $(rows 1 store)$ON_DUPLICATE" > "$work/claim-duplicate.sql"
single="insert-ignore claim short-claim claim-no-purge-index insert-ignore-no-purge-index insert-ignore-duplicate claim-duplicate"
batch="insert-ignore-100 claimAll100"

echo "# benchmarks/mysql/claim-shapes.sh at $(git -C "$here" rev-parse --short HEAD)$(git -C "$here" diff --quiet HEAD -- . || echo ' (with uncommitted changes)')"
echo "# $("$SQL" -h "$HOST" -P "$PORT" -u "$USER" -N -e 'SELECT VERSION()'), $(basename "$SLAP"), new keys (*-duplicate: one COMPLETED key), statements sent as text,"
echo "# $QUERIES single-key statements (or $((QUERIES / 50)) of 100 keys) per run; median rate of $ROUNDS interleaved rounds"
echo "# (statements/s; each round listed after it), $(date -u +%Y-%m-%dT%H:%MZ)"
for clients in $CLIENTS; do
  for round in $(seq "$ROUNDS"); do
    for v in $single $batch; do
      n=$QUERIES; case " $batch " in *" $v "*) n=$((QUERIES / 50)) ;; esac
      sql "TRUNCATE shape_inbox; TRUNCATE shape_nopurge"
      # the duplicates' key, COMPLETED for an hour
      sql "INSERT INTO shape_inbox $COLUMNS VALUES ($CONSUMER, _binary'completed', $OWNER, 1, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, UTC_TIMESTAMP(6) + INTERVAL 2 HOUR, NULL)"
      secs=$("$SLAP" -h "$HOST" -P "$PORT" -u "$USER" --create-schema="$DB" --query="$work/$v.sql" \
        --concurrency="$clients" --number-of-queries="$n" --iterations=1 \
        | awk '/Average number of seconds/ {print $(NF - 1)}')
      echo "$clients $v $(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%d", n / s }')" >> "$work/runs"
    done
  done
done
awk -v unit="st/s" -v width=28 -f "$here/../median-of-rounds.awk" "$work/runs" | sort -k1,1 -k4,4nr
