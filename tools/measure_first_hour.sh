#!/usr/bin/env bash
# The times of README.md's "How long it takes": each command from a fresh
# clone of this repository (its committed HEAD, or COMMIT), one after the
# other, with ccache passed through (CCACHE_DISABLE=1) so that a cache left by
# earlier builds does not count. Prints one line per command: its exit
# status (2 is grade's "needs a GPU"), wall seconds and output lines.
#
#   tools/measure_first_hour.sh [COMMIT] [COMMAND ...]
#   e.g. tools/measure_first_hour.sh HEAD "grade hello" build test
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commit="${1:-HEAD}"
shift || true
(($#)) || set -- "grade hello" build "grade" test
export CCACHE_DISABLE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$ROOT" rev-parse --short "$commit")"
for command in "$@"; do
  clone="$work/clone"
  rm -rf "$clone"
  git clone -q "$ROOT" "$clone" && git -C "$clone" checkout -q "$commit" || exit 1
  began=$(date +%s.%N)
  # shellcheck disable=SC2086 # the command's words
  (cd "$clone" && ./workbook $command) >"$work/out.txt" 2>&1
  status=$?
  printf '%-14s exit %d  %6.1f s  %5d lines\n' "$command" "$status" "$(echo "$(date +%s.%N) - $began" | bc)" \
    "$(wc -l <"$work/out.txt")"
done
