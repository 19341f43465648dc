#!/usr/bin/env bash
# The times of README.md's "How long it takes" (the one place the docs state
# them): each command from a fresh clone of this repository (its committed
# HEAD, or COMMIT), one after the other, with ccache passed through
# (CCACHE_DISABLE=1) so that a cache left by earlier builds does not count.
# Prints one line per command and run: its exit status (2 is grade's "needs a
# GPU"), wall seconds, output lines and widest line; then, with RUNS=N (default
# 1) runs of the whole list, each command's range over the runs. Run it on an
# idle machine: anything else running stretches the times.
#
#   [RUNS=3] tools/measure_first_hour.sh [COMMIT] [COMMAND ...]
#   e.g. RUNS=3 tools/measure_first_hour.sh HEAD "grade hello" build grade test
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commit="${1:-HEAD}"
shift || true
(($#)) || set -- "grade hello" build "grade" test
runs="${RUNS:-1}"
export CCACHE_DISABLE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$ROOT" rev-parse --short "$commit")"
: >"$work/times"
for ((run = 1; run <= runs; run++)); do
  for command in "$@"; do
    clone="$work/clone"
    rm -rf "$clone"
    git clone -q "$ROOT" "$clone" && git -C "$clone" checkout -q "$commit" || exit 1
    began=$(date +%s.%N)
    # shellcheck disable=SC2086 # the command's words
    (cd "$clone" && ./workbook $command) >"$work/out.txt" 2>&1
    status=$?
    seconds=$(echo "$(date +%s.%N) - $began" | bc)
    printf 'run %d  %-14s exit %d  %6.1f s  %5d lines, widest %d\n' "$run" "$command" "$status" "$seconds" \
      "$(wc -l <"$work/out.txt")" "$(awk '{ if (length > w) w = length } END { print w + 0 }' "$work/out.txt")"
    printf '%s\t%s\n' "$command" "$seconds" >>"$work/times"
  done
done
if ((runs > 1)); then
  echo "Over $runs runs (fastest - slowest):"
  for command in "$@"; do
    awk -F'\t' -v c="$command" '$1 == c { n++; if (n == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
      END { printf "  %-14s %6.1f - %6.1f s\n", c, lo, hi }' "$work/times"
  done
fi
