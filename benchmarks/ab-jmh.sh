#!/bin/sh
# A/B comparison of two builds of the benchmarks on the same servers: ROUNDS interleaved rounds
# (A, B, A, B, …), each a JMH run of the given benchmarks in each build; prints each benchmark's
# median score in A and B with every round listed (the spread), and B/A of the medians.
#   benchmarks/ab-jmh.sh A.jar B.jar ROUNDS OUT "JMH arguments"
# A.jar and B.jar are benchmarks/target/benchmarks.jar built at the two commits; OUT gets the
# table, headed by the command, the two jars' commits (given as A_COMMIT and B_COMMIT in the
# environment) and the time.
set -eu
. "$(dirname "$0")/produced-by.sh"
a=$1 b=$2 rounds=$3 out=$4 args=$5
work=$(mktemp -d)
for r in $(seq 1 "$rounds"); do
    for side in a b; do
        jar=$a; [ "$side" = b ] && jar=$b
        # shellcheck disable=SC2086
        java -jar "$jar" $args -rf json -rff "$work/$side-$r.json" > "$work/$side-$r.log" 2>&1
    done
done
{
    echo "# benchmarks/ab-jmh.sh $a $b $rounds $out \"$args\""
    echo "# A: ${A_COMMIT:-?}  B: ${B_COMMIT:-?}  finished $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "# servers: $(produced_by_servers)"
    java -cp "$b" dev.inbox.benchmarks.report.AbTable "$work" "$rounds"
} > "$out"
rm -rf "$work"
cat "$out"
