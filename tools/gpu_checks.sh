#!/usr/bin/env bash
# Maintainers' check on a GPU machine: build, the project's tests, the grade of
# the reference solutions and of the untouched skeletons, and every lab's
# experiment on the solutions (the figures the handouts quote).
#   tools/gpu_checks.sh [LOG_DIR]     (default: gpu-check-logs/)
# Each step's full output goes to LOG_DIR; a summary is printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
logs="${1:-gpu-check-logs}"
mkdir -p "$logs"
summary=()

step() {  # step NAME COMMAND...: run, log, time, remember the exit status
  local name="$1"
  shift
  local began=$SECONDS status=0
  "$@" >"$logs/$name.log" 2>&1 || status=$?
  summary+=("$(printf '%-18s exit %-3s %4ss' "$name" "$status" "$((SECONDS - began))")")
}

nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader >"$logs/gpu.txt" 2>&1
step build ./workbook build
step test ./workbook test -j 8
step grade-solutions ./workbook grade --solutions --json "$logs/solutions-results.json" --junit "$logs/solutions-junit.xml" --color never
step grade-skeletons ./workbook grade --json "$logs/skeletons-results.json" --junit "$logs/skeletons-junit.xml" --color never
for lab in hello abc coalescing; do
  step "bench-$lab" ./workbook bench "$lab" --solution
done

echo "GPU: $(cat "$logs/gpu.txt")"
printf '%s\n' "${summary[@]}"
grep -E "tests passed|Skipped [0-9]+ GPU" "$logs/test.log"
