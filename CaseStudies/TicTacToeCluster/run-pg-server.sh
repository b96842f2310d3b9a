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
script=run-pg-server.sh
# shellcheck source=throwaway-postgres.sh
source "$package/throwaway-postgres.sh"
keep=""
if [ "${1:-}" = "--keep" ]; then
  [ -n "${2:-}" ] || { echo "run-pg-server.sh: --keep needs a directory" >&2; exit 64; }
  keep="$2"
  shift 2
fi

postgres_find
postgres_directory "$keep" tictactoe-pg

server_pid=""
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2> /dev/null; then
    kill -TERM "$server_pid" 2> /dev/null || true
    wait "$server_pid" 2> /dev/null || true
  fi
  postgres_stop
  if [ -z "$keep" ]; then rm -rf "$directory"; fi
  echo "run-pg-server.sh: stopped the server and PostgreSQL" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

postgres_start

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
