#!/bin/sh
# The adapters exactly once into PostgreSQL (AdapterThroughput --only transactional): the
# hand-written inbox loops, ours per record and per poll or window, the Spring batch listener, and
# the ceiling (the same business rows per poll or window, no dedup), through Kafka (a broker the run
# starts) and the local RabbitMQ; a warm-up round and three measured rounds, about 10 minutes; into
# benchmarks/results/adapters-transactional.json, with results/PRODUCED-BY-adapters-transactional.txt
# naming the commit and the command. Arguments go to AdapterThroughput. Run nothing else meanwhile.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
RUN="java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.adapters.AdapterThroughput --only transactional --messages 100000 --rounds 3"
$RUN "$@" > $R/adapters-transactional.json 2> $R/adapters-transactional-rounds.txt
produced_by_write "benchmarks/adapters-transactional.sh $* ($RUN $*)" $R $R/PRODUCED-BY-adapters-transactional.txt
