#!/usr/bin/env bash
# Counts heap allocations per action for one benchmark scenario: runs it under valgrind at two
# iteration counts and divides the difference in `malloc` calls by the difference in actions,
# so start-up allocations cancel out.
#
#   bash Benchmarks/count-allocations.sh [SCENARIO-PREFIX]     (default: B1)
set -euo pipefail
scenario="${1:-B1}"
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 2; }
swift build -c release --product unidirectional-benchmarks >/dev/null
binary=.build/release/unidirectional-benchmarks
allocations() {
  valgrind "$binary" --only "$scenario" --iterations "$1" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}
small=10000
large=110000
a=$(allocations $small)
b=$(allocations $large)
echo "$scenario: $a allocations at $small actions, $b at $large actions:" \
  "$(awk -v a="$a" -v b="$b" -v n=$((large - small)) 'BEGIN { printf "%.4f", (b - a) / n }') per action"
