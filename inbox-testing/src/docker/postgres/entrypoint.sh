#!/bin/sh
# Like the official image: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB on first start, then
# the server in the foreground with the command's arguments (`postgres -c fsync=off` works).
set -eu
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA" && chown postgres "$PGDATA" && chmod 700 "$PGDATA"
  auth=trust
  pwfile=
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    auth=scram-sha-256
    pwfile="$(mktemp)" && printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile" && chown postgres "$pwfile"
  fi
  runuser -u postgres -- initdb -D "$PGDATA" -U "$user" -E UTF8 --no-sync --auth-local=trust \
    --auth-host="$auth" ${pwfile:+--pwfile="$pwfile"} >/dev/null
  [ -z "$pwfile" ] || rm -f "$pwfile"
  echo "host all all all $auth" >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\"" | runuser -u postgres -- postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
[ "${1:-}" = postgres ] && shift
exec runuser -u postgres -- postgres -D "$PGDATA" -c listen_addresses='*' "$@"
