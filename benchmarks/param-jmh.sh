#!/bin/sh
# Two values of one JMH parameter compared in one build: ROUNDS rounds, each a JMH run of the given
# benchmarks with both values (so the two alternate through the run); prints each benchmark's median
# for value A and value B with every round listed (the spread), B/A of the medians, and a verdict
# only outside the spread.
#   benchmarks/param-jmh.sh JAR ROUNDS OUT name=A name=B "JMH arguments"
# OUT gets the table, headed by the command, the jar's commit (COMMIT in the environment) and the time.
set -eu
jar=$1 rounds=$2 out=$3 a=$4 b=$5 args=$6
name=${a%%=*}
work=$(mktemp -d)
for r in $(seq 1 "$rounds"); do
    # shellcheck disable=SC2086
    java -jar "$jar" $args -p "$name=${a#*=},${b#*=}" -rf json -rff "$work/a-$r.json" > "$work/a-$r.log" 2>&1
done
{
    echo "# benchmarks/param-jmh.sh $jar $rounds $out $a $b \"$args\""
    echo "# commit: ${COMMIT:-?}  finished $(date -u +%Y-%m-%dT%H:%MZ)  $(nproc) cores"
    java -cp "$jar" dev.inbox.benchmarks.report.AbTable --param "$work" "$rounds" "$a" "$b"
} > "$out"
rm -rf "$work"
cat "$out"
