#!/usr/bin/env bash
# Runs a cluster of tictactoe-cluster-shard processes against a throwaway PostgreSQL: initdb in a
# temporary directory (or in --keep DIR, which survives, so that a restart recovers the games),
# PostgreSQL started on a free loopback port as the unprivileged user `postgres` when run as
# root, then N shards on loopback. Prints each shard's address on stdout once all listen;
# Ctrl-C (or SIGTERM) stops the shards (each gives its leases back), then PostgreSQL, and
# removes the temporary directory.
#
#   CaseStudies/TicTacToeCluster/run-cluster.sh [--shards N] [--base-port P] [--keep DIR]
#                                               [shard options…]
#
# --shards N: how many shards (default 3), named s1…sN. --base-port P: shard i listens on
# 127.0.0.1:P+i-1 (default 7001); 0 lets each pick a free port. Shard options go to every
# tictactoe-cluster-shard (--partitions N, --lease S, --quiet, …; see its --help).
set -euo pipefail

package="$(cd "$(dirname "$0")" && pwd)"
script=run-cluster.sh
# shellcheck source=throwaway-postgres.sh
source "$package/throwaway-postgres.sh"
shards=3
base_port=7001
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --shards)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "run-cluster.sh: --shards needs a count" >&2; exit 64; }
      shards="$2"
      shift 2
      ;;
    --base-port)
      [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$2" -le 65535 ] \
        || { echo "run-cluster.sh: --base-port needs a port" >&2; exit 64; }
      base_port="$2"
      shift 2
      ;;
    --keep)
      [ -n "${2:-}" ] || { echo "run-cluster.sh: --keep needs a directory" >&2; exit 64; }
      keep="$2"
      shift 2
      ;;
    *) break ;;
  esac
done
if [ "$base_port" -ne 0 ] && [ $((base_port + shards - 1)) -gt 65535 ]; then
  echo "run-cluster.sh: ports $base_port + $shards shards go past 65535" >&2
  exit 64
fi

postgres_find
postgres_directory "$keep" tictactoe-cluster
# The shards' "listening on" lines, read here; not PostgreSQL's directory, which it owns.
addresses="$(mktemp -d /tmp/tictactoe-cluster-addresses.XXXXXX)"

shard_pids=()
cleanup() {
  trap - EXIT INT TERM
  # SIGTERM: each shard commits its journals and gives its leases back, then exits.
  for pid in "${shard_pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for pid in "${shard_pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  postgres_stop
  if [ -z "$keep" ]; then rm -rf "$directory"; fi
  rm -rf "$addresses"
  echo "run-cluster.sh: stopped ${#shard_pids[@]} shards and PostgreSQL" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

postgres_start

# Quiet when it builds; its errors shown when it does not.
if ! build_log=$(swift build --package-path "$package" --product tictactoe-cluster-shard 2>&1); then
  echo "$build_log" >&2
  echo "run-cluster.sh: tictactoe-cluster-shard did not build (see above)" >&2
  exit 1
fi

database="host=127.0.0.1 port=$port user=postgres dbname=postgres connect_timeout=5"
for i in $(seq 1 "$shards"); do
  listen_port=0
  [ "$base_port" -ne 0 ] && listen_port=$((base_port + i - 1))
  # Its stdout (the "listening on" line) to a file; its log to this script's stderr.
  "$package/.build/debug/tictactoe-cluster-shard" --name "s$i" --database "$database" \
    --listen "127.0.0.1:$listen_port" "$@" > "$addresses/s$i" &
  shard_pids+=($!)
done

# Each shard prints "listening on HOST:PORT" once it accepts connections, or exits (a port in
# use, bad options: its log says why).
for i in $(seq 1 "$shards"); do
  pid="${shard_pids[$((i - 1))]}"
  while ! grep -q "^listening on" "$addresses/s$i"; do
    if ! kill -0 "$pid" 2> /dev/null; then
      echo "run-cluster.sh: shard s$i exited before listening (see its log above)" >&2
      exit 1
    fi
    sleep 0.05
  done
done
for i in $(seq 1 "$shards"); do
  echo "s$i $(head -n 1 "$addresses/s$i")"
done
echo "run-cluster.sh: $shards shards up; Ctrl-C stops them and PostgreSQL" >&2

# Until a signal (then the cleanup), or until every shard has exited by itself.
wait
