#!/bin/sh
# The HTTP storm (HttpStorm): clients POSTing with Idempotency-Key and retries to an application
# JVM (HttpStormApp, PostgreSQL) that is SIGKILLed mid-request and started again; in transactional
# and in lease mode, into benchmarks/results/http-storm-postgres-{transactional,lease}.json, with
# results/PRODUCED-BY-http-storm.txt naming the commit and the commands (about 2 minutes). Arguments
# go to both runs (--jdbc-url URL). Run nothing else meanwhile.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
STORM="java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.http.HttpStorm"
RUN="--requests 5000 --clients 8 --kills 20 --duplicate-rate 0.1 --work-ms 20"
$STORM $RUN --mode transactional "$@" > $R/http-storm-postgres-transactional.json
$STORM $RUN --mode lease --lease-ms 2000 "$@" > $R/http-storm-postgres-lease.json
produced_by_write "benchmarks/http-storm.sh $* ($STORM $RUN --mode transactional; the same with --mode lease --lease-ms 2000)" \
    $R $R/PRODUCED-BY-http-storm.txt
