#!/bin/sh
# Produces the files behind RELIABILITY.md's tables, from the current code: the fault storms (the
# tests themselves, keeping their reports) and the two soaks. About 15 minutes on a 2-core machine.
# Needs what the tests need (the local servers, redis-server, initdb/pg_ctl, mariadb-install-db, node).
# Writes PRODUCED-BY.txt beside the files: the commit they came from (and whether the working tree
# had uncommitted changes), when, and each file's SHA-256, so a figure can be traced to its code.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results/reliability
mkdir -p $R
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am install -DskipTests
./mvnw -q -B -pl benchmarks test -Dtest='StormFaultTest,StormRestartFaultTest' -Dsurefire.failIfNoSpecifiedTests=false \
    -Dinbox.storm.reports="$PWD/$R"
./mvnw -q -B -pl benchmarks package -DskipTests
SOAK="java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.storm.StormRunner --json"
$SOAK --store postgres --mode transactional --events 400000 --event-rate 1200 \
    --retention-ms 30000 --grace-ms 30000 --purge-every-ms 2000 --heap-every-ms 15000 > $R/soak-postgres-transactional.json
$SOAK --store redis --events 400000 --event-rate 3000 \
    --retention-ms 30000 --grace-ms 30000 --heap-every-ms 15000 > $R/soak-redis-lease.json
produced_by_write benchmarks/reliability-runs.sh $R $R/PRODUCED-BY.txt
