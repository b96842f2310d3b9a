#!/usr/bin/env bash
# Runs tictactoe-pg-server against a throwaway PostgreSQL: initdb in a temporary directory (or
# in --keep DIR, which survives, so that a restart recovers its games), started on a free
# loopback port as the unprivileged user `postgres` when run as root; Ctrl-C stops both and
# removes the temporary directory.
#
#   CaseStudies/TicTacToeCluster/run-pg-server.sh [--keep DIR] [server options…]
#
# Server options go to tictactoe-pg-server (--port N, --quiet, …; see its --help).
set -euo pipefail

package="$(cd "$(dirname "$0")" && pwd)"
keep=""
if [ "${1:-}" = "--keep" ]; then
  [ -n "${2:-}" ] || { echo "run-pg-server.sh: --keep needs a directory" >&2; exit 64; }
  keep="$2"
  shift 2
fi

binaries="$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1 || true)"
if [ -z "$binaries" ] || ! pkg-config --exists libpq; then
  echo "run-pg-server.sh: PostgreSQL and libpq are needed: apt-get install postgresql libpq-dev" >&2
  exit 69
fi

# PostgreSQL refuses to run as root: as root, run its programs as `postgres`.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  directory="$(cd "$keep" && pwd)"
else
  directory="$(mktemp -d /tmp/tictactoe-pg.XXXXXX)"
fi
[ "$(id -u)" = 0 ] && chown postgres:postgres "$directory"

server_pid=""
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2> /dev/null; then
    kill -TERM "$server_pid" 2> /dev/null || true
    wait "$server_pid" 2> /dev/null || true
  fi
  as_postgres "$binaries/pg_ctl" stop -w -m fast -D "$directory/data" > /dev/null 2>&1 || true
  if [ -z "$keep" ]; then rm -rf "$directory"; fi
  echo "run-pg-server.sh: stopped the server and PostgreSQL" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -f "$directory/data/PG_VERSION" ]; then
  as_postgres "$binaries/initdb" -D "$directory/data" -U postgres -A trust --no-sync > /dev/null
fi

# A free loopback port: the first that nothing answers on and PostgreSQL binds.
port=""
for candidate in $(shuf -i 20000-60000 -n 20); do
  if (echo > "/dev/tcp/127.0.0.1/$candidate") 2> /dev/null; then continue; fi
  if as_postgres "$binaries/pg_ctl" start -w -t 60 -D "$directory/data" \
    -l "$directory/postgresql.log" \
    -o "-p $candidate -k $directory -c listen_addresses=127.0.0.1" > /dev/null; then
    port="$candidate"
    break
  fi
done
if [ -z "$port" ]; then
  # The directory goes with the cleanup: show the log first.
  echo "run-pg-server.sh: PostgreSQL did not start; its log:" >&2
  cat "$directory/postgresql.log" >&2 2> /dev/null || true
  exit 71
fi
echo "run-pg-server.sh: PostgreSQL on 127.0.0.1:$port (data in $directory)" >&2

# Quiet when it builds; its errors shown when it does not.
if ! build_log=$(swift build --package-path "$package" --product tictactoe-pg-server 2>&1); then
  echo "$build_log" >&2
  echo "run-pg-server.sh: tictactoe-pg-server did not build (see above)" >&2
  exit 1
fi
"$package/.build/debug/tictactoe-pg-server" \
  --database "host=127.0.0.1 port=$port user=postgres dbname=postgres connect_timeout=5" "$@" &
server_pid=$!
wait "$server_pid"
