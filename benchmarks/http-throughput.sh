#!/bin/sh
# The Idempotency-Key filter's cost on an HTTP route: HttpThroughput (about 5 minutes with the
# defaults) on the local PostgreSQL and Redis, into benchmarks/results/http-throughput.json, with
# results/PRODUCED-BY-http-throughput.txt naming the commit and the command. Arguments go to
# HttpThroughput (--seconds, --rounds, --clients, --jdbc-url, --redis-url). Run nothing else meanwhile.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.http.HttpThroughput "$@" \
    2>$R/http-throughput-rounds.txt > $R/http-throughput.json
produced_by_write "benchmarks/http-throughput.sh $*" $R $R/PRODUCED-BY-http-throughput.txt
