#!/usr/bin/env bash
# Instructions per iteration of benchmark scenarios, from callgrind: each scenario runs at 2,000
# and 4,000 iterations, and the difference of the totals, divided by 2,000, cancels the start-up
# and set-up costs. Hashing is made deterministic so that two builds compare without the noise
# of random seeds. Repeatable to a few instructions, unlike times; compare two builds in one run.
#
# Usage: bash Benchmarks/instructions-per-iteration.sh [BINARY] SCENARIO...
#   BINARY defaults to .build/release/unidirectional-benchmarks (build it with
#   `swift build -c release --product unidirectional-benchmarks`).
# Example: bash Benchmarks/instructions-per-iteration.sh B2 C3
set -euo pipefail
binary=.build/release/unidirectional-benchmarks
if [ $# -gt 0 ] && [ -x "$1" ]; then
  binary=$1
  shift
fi
if [ $# -eq 0 ]; then
  echo "usage: $0 [BINARY] SCENARIO..." >&2
  exit 2
fi
command -v valgrind > /dev/null || { echo "error: valgrind is not installed" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
total() {
  SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$scratch/out" \
    "$binary" --only "$1" --iterations "$2" --passes 1 > /dev/null 2> "$scratch/err" \
    || { cat "$scratch/err" >&2; exit 1; }
  grep -m1 -E "^(summary|totals):" "$scratch/out" | awk '{ print $2 }'
}
for scenario in "$@"; do
  small=$(total "$scenario" 2000)
  large=$(total "$scenario" 4000)
  echo "$scenario $(((large - small) / 2000))"
done
