#!/usr/bin/env bash
# Builds local Docker images that behave like the official postgres, mariadb and redis images
# (same environment variables, ports and commands), from Debian packages only, for machines whose
# Docker engine reaches no image registry. Each image is built once and then kept by its tag, so a
# second run costs nothing. Point the tests at them with the variables this script prints.
#
#   inbox-testing/src/docker/build-images.sh            # builds what is missing
#   REBUILD=1 inbox-testing/src/docker/build-images.sh  # builds everything again
#
# Needs: a running Docker engine, debootstrap, and Debian's package archive (the mirror is read
# from this machine's apt sources).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
base=local/debian:bookworm

missing() { [ "${REBUILD:-0}" = 1 ] || ! docker image inspect "$1" >/dev/null 2>&1; }

mirror() {
  # The machine's own Debian mirror, so the images come from where apt already goes.
  { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'
    grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}'; } | grep -v security | head -1
}

if missing "$base"; then
  root="$(mktemp -d)"
  trap 'rm -rf "$root"' EXIT
  echo "[images] debootstrap --variant=minbase bookworm (about 30 s)"
  # shellcheck disable=SC2046
  debootstrap --variant=minbase bookworm "$root" $(mirror) >/dev/null
  tar -C "$root" -c . | docker import - "$base" >/dev/null
  rm -rf "$root"
  trap - EXIT
fi

build() {
  local tag="$1" dir="$2"
  if missing "$tag"; then
    echo "[images] building $tag"
    # The context goes in as a tar on stdin, so the entrypoint can be copied into the image.
    tar -C "$here/$dir" -c . | docker build --quiet --network host -t "$tag" - >/dev/null
  fi
}
build local/postgres:15 postgres
build local/mariadb:10.11 mariadb
build local/redis:7 redis

cat <<'VARS'
[images] ready; use them with:
export INBOX_TEST_POSTGRES_IMAGE=local/postgres:15
export INBOX_TEST_MYSQL_IMAGE=local/mariadb:10.11
export INBOX_TEST_REDIS_IMAGE=local/redis:7
VARS
