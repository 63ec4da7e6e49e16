#!/bin/sh
# The storm through a Kafka share group (KafkaShareInboxLoop), in transactional and in lease mode,
# into the local PostgreSQL, on a single-node broker the runner starts (about 5 minutes); into
# benchmarks/results/storm-kafka-share-postgres-{transactional,lease}.json, with
# results/PRODUCED-BY-share-storms.txt naming the commit and the commands. Run nothing else meanwhile.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
STORM="java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.storm.StormRunner --json"
SHARE="--store postgres --events 5000 --partitions 4 --consumers 4 --crash-after-work-rate 0.01 --broker kafka-share"
$STORM $SHARE --mode transactional > $R/storm-kafka-share-postgres-transactional.json
$STORM $SHARE --mode lease --lease-ms 2000 > $R/storm-kafka-share-postgres-lease.json
produced_by_write "benchmarks/share-storms.sh ($STORM $SHARE --mode transactional; the same with --mode lease --lease-ms 2000)" \
    $R $R/PRODUCED-BY-share-storms.txt
