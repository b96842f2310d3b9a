#!/usr/bin/env bash
# Counts heap allocations per action for benchmark scenarios: runs each under valgrind at two
# iteration counts and divides the difference in `malloc` calls by the difference in actions,
# so start-up allocations cancel out.
#
#   bash Benchmarks/count-allocations.sh [--skip-build] [--small N] [--large N] [SCENARIO-PREFIX...]
#
# With no scenario, counts B1. Prints one line per scenario:
#   B1: 12 allocations at 10000 actions, 12 at 110000 actions: 0.0000 per action
# `--skip-build` uses the release binary already built (`.ci/allocations` builds it once).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 2; }
build=1
small=10000
large=110000
scenarios=()
while (($#)); do
  case "$1" in
    --skip-build) build=0 ;;
    --small) small="$2"; shift ;;
    --large) large="$2"; shift ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) scenarios+=("$1") ;;
  esac
  shift
done
((${#scenarios[@]})) || scenarios=(B1)
((large > small)) || { echo "--large must exceed --small" >&2; exit 2; }
if ((build)); then
  swift build -c release --product unidirectional-benchmarks >/dev/null
fi
binary=.build/release/unidirectional-benchmarks
[[ -x $binary ]] || { echo "no $binary: build it, or drop --skip-build" >&2; exit 2; }
allocations() {
  local count
  count=$(valgrind "$binary" --only "$1" --iterations "$2" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,)
  [[ -n $count ]] || { echo "valgrind reported no heap usage for $1" >&2; exit 1; }
  echo "$count"
}
for scenario in "${scenarios[@]}"; do
  a=$(allocations "$scenario" "$small")
  b=$(allocations "$scenario" "$large")
  echo "$scenario: $a allocations at $small actions, $b at $large actions:" \
    "$(awk -v a="$a" -v b="$b" -v n=$((large - small)) 'BEGIN { printf "%.4f", (b - a) / n }') per action"
done
