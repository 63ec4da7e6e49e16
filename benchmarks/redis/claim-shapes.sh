#!/usr/bin/env bash
# Where a new event's cost goes on Redis, server and network side: the store's claim script beside
# Spring Integration's HSETNX and beside the parts of the script on their own (its one SET NX GET,
# a script call that does nothing, a PING for the round trip), each a redis-benchmark run of new
# keys. Rounds are interleaved (every variant once per round) and the median of the rounds is kept,
# because this two-core machine drifts by 20 % between back-to-back runs. redis-benchmark is a C
# client: what the Java client adds is not in these figures (PeerClaimBenchmark has it).
#
#   benchmarks/redis/claim-shapes.sh > benchmarks/results/redis-claim-shapes.txt
#
# Environment: REDIS_HOST (127.0.0.1), REDIS_PORT (6379), ROUNDS (5), REQUESTS (20000 per client),
# CLIENTS ("1 4"). Keys are written under shape:* and deleted at the end.
set -euo pipefail
host=${REDIS_HOST:-127.0.0.1}
port=${REDIS_PORT:-6379}
ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-20000}
CLIENTS=${CLIENTS:-1 4}
here=$(cd "$(dirname "$0")" && pwd)
cli() { redis-cli -h "$host" -p "$port" "$@"; }
work=$(mktemp -d)
cleanup() {
  cli --scan --pattern 'shape:*' | xargs -r -n 500 redis-cli -h "$host" -p "$port" DEL >/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

claim=$(cli SCRIPT LOAD "$(cat "$here/../../inbox-redis/src/main/resources/dev/inbox/redis/claim.lua")")
noop=$(cli SCRIPT LOAD "return 1")
owner=Vq3bX0yJ6cTzWm1rL8nF2g
# Each variant: a name, then the command redis-benchmark repeats (__rand_int__: a random 12-digit
# number, so every request is a new key but for a rare collision).
variants=(
  "spring-integration|HSETNX shape:si k-__rand_int__ 1"
  "inbox-claim|EVALSHA $claim 1 shape:{k-__rand_int__} 3600000 0 $owner 300000 ''"
  "set-nx-get-only|SET shape:{k-__rand_int__} 'I 1764748800000 $owner' NX GET PX 3900000"
  "empty-script|EVALSHA $noop 0"
  "ping|PING"
)

echo "# Redis $(cli INFO server | awk -F: '/^redis_version/ {print $2}' | tr -d '\r'), redis-benchmark, new keys,"
echo "# $REQUESTS requests per client per run, median requests/s of $ROUNDS interleaved rounds, $(date -u +%Y-%m-%dT%H:%MZ)"
for clients in $CLIENTS; do
  for round in $(seq "$ROUNDS"); do
    for v in "${variants[@]}"; do
      name=${v%%|*}
      command=${v#*|}
      rps=$(eval "redis-benchmark -h $host -p $port -c $clients -n $((REQUESTS * clients)) -r 1000000000 --csv $command" \
        | awk -F'","' 'NR == 2 {print int($2)}')
      echo "$clients $name $rps" >> "$work/runs"
    done
  done
done
awk -v unit=req/s -v width=20 -f "$here/../median-of-rounds.awk" "$work/runs" | sort -k1,1 -k4,4nr
