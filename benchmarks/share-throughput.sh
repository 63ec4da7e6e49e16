#!/bin/sh
# Records per second through a Kafka share group: a bare share consumer, KafkaShareInboxLoop and a
# hand-written share consumer with its own dedup check, on the embedded store and on the local
# PostgreSQL (where the loop runs per record and in its batch form), 1 and 4 members, in five
# interleaved rounds after a warm-up round (medians and spreads), on a single-node broker the run
# starts (about 6 minutes); into benchmarks/results/adapters-share.json, with
# results/PRODUCED-BY-share-throughput.txt naming the commit and the command. Run nothing else meanwhile.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
RUN="java -Xmx1g -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.adapters.ShareThroughput --messages 100000 --rounds 5"
$RUN > $R/adapters-share.json
produced_by_write "benchmarks/share-throughput.sh ($RUN)" $R $R/PRODUCED-BY-share-throughput.txt
