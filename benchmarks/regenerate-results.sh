#!/bin/sh
# Regenerates the files in benchmarks/results from the current code with the commands
# benchmarks/README.md shows, step by step:
#
#   benchmarks/regenerate-results.sh [STEP...]
#
#   jmh            the JMH claim, purge, latency, handleAll, peer and Cluster runs, then the results
#                  table and chart (about 40 minutes on a 2-core machine)
#   storms         the storm table's runs on the simulated broker (about 10 minutes)
#   broker-storms  the storms through Kafka, RabbitMQ and SQS (ElasticMQ), every mode the broker
#                  table lists but the share groups' (share-storms.sh) (about 15 minutes)
#   adapters       the adapters against the bare client loops: AdapterThroughput, three rounds of
#                  every variant (about 20 minutes)
#   adapter-breakdown  AdapterThroughput's per-poll variants, SqsThroughput, AdapterPathBenchmark
#                  (about 15 minutes)
#   purge          purge of a 10M-row table under load, unpaced and paced (about 45 minutes)
#   shapes         where a new event's cost goes, server side: pgbench, redis-benchmark,
#                  mariadb-slap (about 18 minutes)
#   http           the Idempotency-Key filter against the same route without it (about 5 minutes)
#   footprint      the in-memory store's bytes per key (about a minute)
#
# No STEP runs them all, in that order. Run nothing else meanwhile. Needs the local servers
# (PostgreSQL, MariaDB/MySQL, Redis, RabbitMQ), node for dynalite, python3. Each step writes
# results/PRODUCED-BY-regenerate-<step>.txt: the commit (and whether the tree was clean), when,
# and the SHA-256 of each file the step wrote; a file another command rewrites later no longer
# matches it (ResultsProvenanceTest then asks for a newer stamp). Commit before you run it.
set -eu
cd "$(dirname "$0")/.."
R=benchmarks/results
. benchmarks/produced-by.sh
ALL="jmh storms broker-storms adapters adapter-breakdown purge shapes http footprint"
STEPS=${*:-$ALL}
for step in $STEPS; do
    case " $ALL " in
        *" $step "*) ;;
        *) echo "unknown step '$step'; the steps are: $ALL" >&2; exit 2 ;;
    esac
done
./mvnw -q -B -pl benchmarks -am package -DskipTests
JMH="java -jar benchmarks/target/benchmarks.jar"
JCP="java -cp benchmarks/target/benchmarks.jar"
CP="java -Xmx512m -cp benchmarks/target/benchmarks.jar"
STORM="$CP dev.inbox.benchmarks.storm.StormRunner --json"

dynalite() {
    # dynalite for the DynamoDB runs (the build installs it only when it runs the tests), started
    # once per run and stopped when the script ends.
    [ -z "${PORT:-}" ] || return 0
    [ -f inbox-dynamodb/src/test/dynalite/node_modules/dynalite/cli.js ] \
        || (cd inbox-dynamodb/src/test/dynalite && npm ci --ignore-scripts --no-audit --no-fund)
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    node inbox-dynamodb/src/test/dynalite/node_modules/dynalite/cli.js --port "$PORT" --host 127.0.0.1 &
    DYNALITE=$!
    trap 'kill $DYNALITE 2>/dev/null || true' EXIT
    sleep 2
}

step_jmh() {
    dynalite
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
    $JCP dev.inbox.benchmarks.cluster.RedisClusterSpread 30000 > $R/redis-cluster-spread.json
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
    # The results table (benchmarks/README.md) and results/chart.svg from the JMH files.
    ./mvnw -q -B -pl benchmarks -am compile exec:java -Dexec.mainClass=dev.inbox.benchmarks.report.ResultsReport
}

step_storms() {
    # The storm table (20,000 events, the runner's defaults unless given).
    $STORM > $R/storm-caffeine-lease.json
    $STORM --store postgres --mode transactional --crash-after-work-rate 0.01 > $R/storm-postgres-transactional.json
    $STORM --store postgres --crash-after-work-rate 0.01 > $R/storm-postgres-lease.json
    $STORM --store mysql --mode transactional --crash-after-work-rate 0.01 > $R/storm-mysql-transactional.json
    $STORM --store redis > $R/storm-redis-lease.json
    dynalite
    $STORM --store dynamodb --dynamodb-url "http://127.0.0.1:$PORT" --events 5000 > $R/storm-dynamodb-lease.json
}

step_broker_storms() {
    # Through the real brokers (Kafka: a single-node broker the runner starts; RabbitMQ: the local
    # one; SQS: ElasticMQ the runner starts), 5,000 events over four partitions and four consumers.
    BROKER="$STORM --events 5000 --partitions 4 --consumers 4 --crash-after-work-rate 0.01"
    TX="$BROKER --store postgres --mode transactional"
    $TX --broker kafka > $R/storm-kafka-postgres-transactional.json
    $TX --broker rabbitmq > $R/storm-rabbitmq-postgres-transactional.json
    $TX --broker sqs > $R/storm-sqs-postgres-transactional.json
    $TX --broker sqs-fifo > $R/storm-sqs-fifo-postgres-transactional.json
    BATCH="$BROKER --mode transactional-batch"
    $BATCH --store postgres --broker kafka > $R/storm-kafka-postgres-transactional-batch.json
    $BATCH --store mysql --broker kafka > $R/storm-kafka-mysql-transactional-batch.json
    $BATCH --store postgres --broker sqs > $R/storm-sqs-postgres-transactional-batch.json
    $BATCH --store postgres --broker rabbitmq > $R/storm-rabbitmq-postgres-transactional-batch.json
    $BROKER --store postgres --mode lease --lease-ms 2000 --broker kafka > $R/storm-kafka-postgres-lease.json
    $BROKER --store postgres --mode lease-batch --lease-ms 2000 --broker kafka > $R/storm-kafka-postgres-lease-batch.json
    dynalite
    $STORM --store dynamodb --dynamodb-url "http://127.0.0.1:$PORT" --events 2000 --partitions 4 --consumers 4 \
        --crash-after-work-rate 0.01 --lease-ms 2000 --broker sqs > $R/storm-sqs-dynamodb-lease.json
}

step_adapters() {
    # The adapters against the bare client loops doing the same work.
    $CP dev.inbox.benchmarks.adapters.AdapterThroughput > $R/adapters.json
}

step_adapter_breakdown() {
    # Kafka's loop with and without per-poll completion, the SQS loops, and the Kafka loop's cost
    # per record with the broker taken out.
    $CP dev.inbox.benchmarks.adapters.AdapterThroughput --only per-poll > $R/adapters-per-poll.json
    $JCP dev.inbox.benchmarks.adapters.SqsThroughput --messages 20000 > $R/adapters-sqs.json
    $JMH AdapterPathBenchmark -prof gc -rf json -rff $R/adapter-path.json
}

step_purge() {
    # Purge of a 10M-row table while four threads claim, beside one raw DELETE (about 4 and 8 minutes).
    PURGE="java -Xmx1g -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.purge.PurgeUnderLoad"
    $PURGE --store postgres > $R/purge-under-load-postgres.json
    $PURGE --store mysql > $R/purge-under-load-mysql.json
    # The same, paced: the store's purgeNiceRatio (about 5 minutes each on PostgreSQL, 10 on MariaDB).
    for ratio in 0 1 3; do $PURGE --store postgres --nice-ratio $ratio > $R/purge-under-load-postgres-nice-$ratio.json; done
    for ratio in 0 1; do $PURGE --store mysql --nice-ratio $ratio > $R/purge-under-load-mysql-nice-$ratio.json; done
}

step_shapes() {
    # Where a new event's cost goes on PostgreSQL, Redis and MariaDB, server side (pgbench, about 10
    # minutes; redis-benchmark, about 3; mariadb-slap, about 5).
    benchmarks/pgbench/claim-shapes.sh > $R/pg-claim-shapes.txt
    benchmarks/redis/claim-shapes.sh > $R/redis-claim-shapes.txt
    benchmarks/mysql/claim-shapes.sh > $R/mysql-claim-shapes.txt
}

step_http() {
    # The Idempotency-Key filter against the same route without it (embedded Tomcat; about 4 minutes).
    $JCP dev.inbox.benchmarks.http.HttpThroughput 2>$R/http-throughput-rounds.txt > $R/http-throughput.json
}

step_footprint() {
    # The in-memory store's footprint (docs/using-the-inbox.md's bytes per key).
    $JCP dev.inbox.benchmarks.memory.CaffeineFootprint 1000000 > $R/caffeine-footprint.txt
}

for step in $STEPS; do
    produced_by_start
    "step_$(echo "$step" | tr - _)"
    produced_by_write "benchmarks/regenerate-results.sh $step" $R $R/PRODUCED-BY-regenerate-$step.txt
done
