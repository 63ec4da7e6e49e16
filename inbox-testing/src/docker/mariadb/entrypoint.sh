#!/bin/sh
# Like the official image: MARIADB_/MYSQL_ ROOT_PASSWORD, ALLOW_EMPTY_ROOT_PASSWORD, DATABASE,
# USER and PASSWORD on first start, then the server in the foreground.
set -eu
pw="${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}"
db="${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}"
user="${MARIADB_USER:-${MYSQL_USER:-}}"
userpw="${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}"
init=/run/mysqld/init.sql
if [ ! -d /var/lib/mysql/mysql ]; then
  mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db \
    --auth-root-authentication-method=normal >/dev/null
  {
    echo "CREATE USER IF NOT EXISTS 'root'@'%';"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$pw';"
    echo "ALTER USER 'root'@'%' IDENTIFIED BY '$pw';"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    [ -z "$db" ] || echo "CREATE DATABASE IF NOT EXISTS \`$db\`;"
    if [ -n "$user" ]; then
      echo "CREATE USER IF NOT EXISTS '$user'@'%' IDENTIFIED BY '$userpw';"
      [ -z "$db" ] || echo "GRANT ALL ON \`$db\`.* TO '$user'@'%';"
    fi
  } > "$init"
  chown mysql "$init"
fi
[ "${1:-}" = mariadbd ] && shift
exec mariadbd --user=mysql --datadir=/var/lib/mysql --bind-address=0.0.0.0 --skip-name-resolve \
  $( [ -f "$init" ] && echo --init-file="$init" ) "$@"
