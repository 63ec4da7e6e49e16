# Sourced by the scripts that regenerate results (reliability-runs.sh, regenerate-results.sh): they
# call produced_by_start before their runs and produced_by_write at the end, which writes a
# PRODUCED-BY file naming the commit the files came from (and whether the working tree had
# uncommitted changes), when, the machine and the local servers' versions, and the SHA-256 of each
# file the run wrote, so every figure in a
# document can be traced to the code that produced it. A file in the directory changed later by
# another command no longer matches its hash here.

produced_by_start() {
    PRODUCED_BY_COMMIT=$(git rev-parse HEAD)
    PRODUCED_BY_TREE=$(if git diff --quiet HEAD -- . ':!benchmarks/results'; then echo "working tree clean"; else echo "WITH UNCOMMITTED CHANGES"; fi)
    PRODUCED_BY_STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    PRODUCED_BY_MARK=$(mktemp)
}

# produced_by_write <script name> <directory> <output file>: the files of <directory> written since
# produced_by_start.
produced_by_write() {
    {
        echo "Produced by $1"
        echo "commit: $PRODUCED_BY_COMMIT ($PRODUCED_BY_TREE)"
        echo "started: $PRODUCED_BY_STARTED"
        echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "machine: $(nproc) cores, $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB"}'), $(uname -sr)," \
            "$(java -version 2>&1 | head -1)"
        echo "servers: $(produced_by_servers)"
        echo "files (sha256):"
        (cd "$2" && find . -maxdepth 1 -type f -newer "$PRODUCED_BY_MARK" ! -name 'PRODUCED-BY*' \
            | sed 's:^\./::' | sort | xargs -r sha256sum)
    } > "$3"
    rm -f "$PRODUCED_BY_MARK"
}

# The local servers' versions on one line (ab-jmh.sh heads its tables with it too).
produced_by_servers() {
    echo "$(psql -h 127.0.0.1 -U postgres -d test -Atc 'select version()' 2>/dev/null | cut -d, -f1);" \
        "$(mariadb -h 127.0.0.1 -uroot -N -e 'SELECT VERSION()' 2>/dev/null || echo 'no MariaDB/MySQL');" \
        "Redis $(redis-cli -h 127.0.0.1 INFO server 2>/dev/null | sed -n 's/^redis_version:\(.*\)\r$/\1/p')"
}
