#!/bin/sh
# The share-group storm with members as processes (ShareStorm): member JVMs running
# KafkaShareInboxLoop into PostgreSQL, SIGKILLed mid-work and replaced, on a single-node broker the
# runner starts; in transactional and in lease mode, into
# benchmarks/results/share-process-storm-postgres-{transactional,lease}.json, with
# results/PRODUCED-BY-share-process-storms.txt naming the commit and the commands (a few minutes).
# Arguments go to both runs (--jdbc-url URL). Run nothing else meanwhile.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
STORM="java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.storm.ShareStorm"
RUN="--events 5000 --members 4 --kills 12 --duplicate-rate 0.1 --work-ms 20"
$STORM $RUN --mode transactional "$@" > $R/share-process-storm-postgres-transactional.json
$STORM $RUN --mode lease --lease-ms 2000 "$@" > $R/share-process-storm-postgres-lease.json
produced_by_write "benchmarks/share-process-storms.sh $* ($STORM $RUN --mode transactional; the same with --mode lease --lease-ms 2000)" \
    $R $R/PRODUCED-BY-share-process-storms.txt
