#!/bin/sh
# Regenerates every file in benchmarks/results from the current code, in one run, with the
# commands benchmarks/README.md shows: the JMH claim, purge and latency runs, the storm table's
# runs (--json), then the table and chart. About an hour on a 2-core machine; run nothing else
# meanwhile. Needs the local servers (PostgreSQL, MariaDB/MySQL, Redis), node for dynalite, python3.
# Writes results/PRODUCED-BY-regenerate-results.txt: the commit, and the SHA-256 of each file it wrote
# (files other commands wrote into results/ later no longer match: each document names its command).
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
produced_by_start
./mvnw -q -B -pl benchmarks -am package -DskipTests
# dynalite for the DynamoDB runs (the build installs it only when it runs the tests).
[ -f inbox-dynamodb/src/test/dynalite/node_modules/dynalite/cli.js ] \
    || (cd inbox-dynamodb/src/test/dynalite && npm ci --ignore-scripts --no-audit --no-fund)
JMH="java -jar benchmarks/target/benchmarks.jar"

$JMH PostgresClaimBenchmark -t 1 -rf json -rff $R/postgres-claims-t1.json
$JMH PostgresClaimBenchmark -t 4 -rf json -rff $R/postgres-claims-t4.json
$JMH PostgresPurgeBenchmark -rf json -rff $R/postgres-purge.json
$JMH MysqlClaimBenchmark -t 1 -rf json -rff $R/mysql-claims-t1.json
$JMH MysqlClaimBenchmark -t 4 -rf json -rff $R/mysql-claims-t4.json
$JMH MysqlPurgeBenchmark -rf json -rff $R/mysql-purge.json
$JMH RedisClaimBenchmark -t 1 -rf json -rff $R/redis-claims-t1.json
$JMH HandleAllBenchmark -t 1 -rf json -rff $R/handle-all.json
$JMH RedisClaimBenchmark -t 4 -rf json -rff $R/redis-claims-t4.json
# One consumer on a 3-primary Redis Cluster the runs start themselves, in both key layouts.
$JMH RedisClusterBenchmark -t 4 -rf json -rff $R/redis-cluster-t4.json
java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.cluster.RedisClusterSpread 30000 > $R/redis-cluster-spread.json
$JMH DynamoDbClaimBenchmark -t 1 -rf json -rff $R/dynamodb-claims-t1.json
$JMH "DynamoDbClaimBenchmark.(claim|contended|claimComplete)_" -t 4 -rf json -rff $R/dynamodb-claims-t4.json
$JMH AnyStoreClaimBenchmark -t 1 -rf json -rff $R/caffeine-claims-t1.json
$JMH AnyStoreClaimBenchmark -t 4 -rf json -rff $R/caffeine-claims-t4.json
$JMH PeerClaimBenchmark -t 1 -rf json -rff $R/peers-t1.json
$JMH PeerClaimBenchmark -t 4 -rf json -rff $R/peers-t4.json
$JMH "(Postgres|Mysql|Redis|DynamoDb)ClaimBenchmark.(claim|duplicate|contended|claimComplete|transactional)_" \
    -t 1 -bm sample -tu us -wi 1 -w 2 -i 3 -r 3 -rf json -rff $R/all-latency-t1.json
# JMH's rawDataHistogram fields are megabytes of samples the report does not read.
python3 - "$R/all-latency-t1.json" <<'PY'
import json, sys
path = sys.argv[1]
runs = json.load(open(path))
for run in runs:
    run["primaryMetric"].pop("rawDataHistogram", None)
json.dump(runs, open(path, "w"), indent=4)
PY

# The storm table (20,000 events, the runner's defaults unless given).
STORM="java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.storm.StormRunner --json"
$STORM > $R/storm-caffeine-lease.json
$STORM --store postgres --mode transactional --crash-after-work-rate 0.01 > $R/storm-postgres-transactional.json
$STORM --store postgres --crash-after-work-rate 0.01 > $R/storm-postgres-lease.json
$STORM --store mysql --mode transactional --crash-after-work-rate 0.01 > $R/storm-mysql-transactional.json
$STORM --store redis > $R/storm-redis-lease.json
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
node inbox-dynamodb/src/test/dynalite/node_modules/dynalite/cli.js --port "$PORT" --host 127.0.0.1 &
DYNALITE=$!
trap 'kill $DYNALITE 2>/dev/null || true' EXIT
sleep 2
$STORM --store dynamodb --dynamodb-url "http://127.0.0.1:$PORT" --events 5000 > $R/storm-dynamodb-lease.json

# Through the real brokers (Kafka: a single-node broker the runner starts; RabbitMQ: the local one).
BROKER="$STORM --store postgres --mode transactional --events 5000 --partitions 4 --consumers 4 --crash-after-work-rate 0.01"
$BROKER --broker kafka > $R/storm-kafka-postgres-transactional.json
$BROKER --broker rabbitmq > $R/storm-rabbitmq-postgres-transactional.json
# The adapters against the bare client loops doing the same work.
java -Xmx512m -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.adapters.AdapterThroughput > $R/adapters.json

# Purge of a 10M-row table while four threads claim, beside one raw DELETE (about 4 and 8 minutes).
PURGE="java -Xmx1g -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.purge.PurgeUnderLoad"
$PURGE --store postgres > $R/purge-under-load-postgres.json
$PURGE --store mysql > $R/purge-under-load-mysql.json
# The same, paced: the store's purgeNiceRatio (about 5 minutes each on PostgreSQL, 10 on MariaDB).
for ratio in 0 1 3; do $PURGE --store postgres --nice-ratio $ratio > $R/purge-under-load-postgres-nice-$ratio.json; done
for ratio in 0 1; do $PURGE --store mysql --nice-ratio $ratio > $R/purge-under-load-mysql-nice-$ratio.json; done
# Where a new event's cost goes on PostgreSQL, Redis and MariaDB, server side (pgbench, about 10
# minutes; redis-benchmark, about 3; mariadb-slap, about 5).
benchmarks/pgbench/claim-shapes.sh > $R/pg-claim-shapes.txt
benchmarks/redis/claim-shapes.sh > $R/redis-claim-shapes.txt
benchmarks/mysql/claim-shapes.sh > $R/mysql-claim-shapes.txt

# The Idempotency-Key filter against the same route without it (embedded Tomcat; about 4 minutes).
java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.http.HttpThroughput \
    2>$R/http-throughput-rounds.txt > $R/http-throughput.json

# The in-memory store's footprint (docs/using-the-inbox.md's bytes per key).
java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.memory.CaffeineFootprint 1000000 > $R/caffeine-footprint.txt

./mvnw -q -B -pl benchmarks -am compile exec:java -Dexec.mainClass=dev.inbox.benchmarks.report.ResultsReport
produced_by_write benchmarks/regenerate-results.sh $R $R/PRODUCED-BY-regenerate-results.txt
