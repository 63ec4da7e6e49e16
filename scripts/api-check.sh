#!/usr/bin/env bash
# The API check (the api-check profile: japicmp) against a version built from the git history,
# for when the version to compare with is not on Maven Central (before the first release, or a
# commit rather than a release):
#
#   scripts/api-check.sh <git ref>     # HEAD's published modules against those of <ref>
#   scripts/api-check.sh --self-test   # shows the check passing on HEAD against itself, and
#                                      # failing on a deliberately incompatible change
#
# <ref> is built into a throwaway Maven repository (hard links to ~/.m2/repository, so nothing is
# downloaded twice and nothing of it stays behind) as version 0.0.0-api-baseline; then HEAD is built
# with -Papi-check against it. Exit code 0 when nothing incompatible was found; japicmp's report
# names each change (target/japicmp/ of each module, kept in the work directory it prints).
# Against a release on Maven Central no script is needed:
#   ./mvnw -B verify -DskipTests -Papi-check -Dinbox.api.baseline=<version>
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
baseline_version="0.0.0-api-baseline"
work="$(mktemp -d)"
keep_work=0
trap '[ "$keep_work" = 1 ] || rm -rf "$work"' EXIT
repo="$work/repo"
mkdir -p "$repo"
if [ -d "$HOME/.m2/repository" ]; then
  cp -al "$HOME/.m2/repository/." "$repo/"
  rm -rf "$repo/dev/inbox/"*"/$baseline_version"
fi
# Only what is published: the benchmarks and the examples are neither built nor checked.
modules='!benchmarks,!examples/rabbitmq-postgres,!examples/boot-parent'
fast=(-DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dspotless.check.skip=true)

clone() { # clone <dir> <ref>
  git clone -q "$root" "$1"
  git -C "$1" checkout -q "$2"
}

build_baseline() { # build_baseline <ref>
  clone "$work/baseline" "$1"
  local snapshot
  snapshot="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$work/baseline/pom.xml" | head -1)"
  (cd "$work/baseline" && git ls-files '*pom.xml' | xargs sed -i "s/${snapshot//./\\.}/$baseline_version/g")
  (cd "$work/baseline" && ./mvnw -B -q install "${fast[@]}" -Dmaven.repo.local="$repo" -pl "$modules") \
    > "$work/baseline.log" 2>&1 || { tail -40 "$work/baseline.log"; echo "building $1 failed" >&2; exit 2; }
}

check() { # check <dir> [maven args...]: 0 when compatible
  local dir="$1"
  shift
  (cd "$dir" && ./mvnw -B install "${fast[@]}" -Papi-check -Dinbox.api.baseline="$baseline_version" \
    -Dmaven.repo.local="$repo" "$@") > "$dir/api-check.log" 2>&1
}

if [ "${1:-}" = "--self-test" ]; then
  build_baseline HEAD
  clone "$work/same" HEAD
  if ! check "$work/same" -pl "$modules"; then
    grep -E "ERROR|incompatib" "$work/same/api-check.log" | head -20
    echo "SELF-TEST FAILED: HEAD is reported incompatible with itself" >&2
    exit 1
  fi
  jars="$(sed -n 's:.*<artifactId>\(inbox-[a-z-]*\)</artifactId>.*:\1:p' "$root/inbox-bom/pom.xml" | grep -v '^inbox-bom$' | sort -u | wc -l)"
  compared="$(find "$work/same" -path '*/target/japicmp/api-check.diff' | wc -l)"
  if [ "$compared" -ne "$jars" ]; then
    echo "SELF-TEST FAILED: $compared of the $jars published jars were compared" >&2
    exit 1
  fi
  echo "HEAD against itself: compatible ($compared published jars compared)"
  clone "$work/broken" HEAD
  # A deliberately incompatible change: a new abstract method on the store SPI breaks every store
  # written against it (METHOD_ADDED_TO_INTERFACE: source-incompatible).
  sed -i 's|^    long purge();|    long purge();\n\n    /** Added by the API check'"'"'s self-test. */\n    long addedByTheSelfTest();|' \
    "$work/broken/inbox-api/src/main/java/dev/inbox/spi/InboxStore.java"
  grep -q addedByTheSelfTest "$work/broken/inbox-api/src/main/java/dev/inbox/spi/InboxStore.java"
  if check "$work/broken" -pl inbox-api; then
    echo "SELF-TEST FAILED: an abstract method added to InboxStore passed the check" >&2
    exit 1
  fi
  if ! grep -q "METHOD_ADDED_TO_INTERFACE" "$work/broken/api-check.log"; then
    tail -30 "$work/broken/api-check.log"
    echo "SELF-TEST FAILED: the check failed, but not on the change made" >&2
    exit 1
  fi
  grep -m1 -o "METHOD_ADDED_TO_INTERFACE[^]]*" "$work/broken/api-check.log" || true
  echo "a method added to InboxStore: rejected (METHOD_ADDED_TO_INTERFACE)"
  echo "SELF-TEST PASSED"
  exit 0
fi

ref="${1:?usage: scripts/api-check.sh <git ref> | --self-test}"
build_baseline "$ref"
clone "$work/head" HEAD
if check "$work/head" -pl "$modules"; then
  echo "compatible with $ref: every published module"
else
  keep_work=1
  grep -E "ERROR|incompatib" "$work/head/api-check.log" | head -40
  echo "INCOMPATIBLE with $ref (full log: $work/head/api-check.log); record the break and its migration in" \
    "CHANGELOG.md, or undo it" >&2
  exit 1
fi
