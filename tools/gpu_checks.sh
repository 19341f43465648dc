#!/usr/bin/env bash
# Maintainers' check on a GPU machine: build, the project's tests, the grade of
# the reference solutions and of the untouched skeletons, and every lab's
# experiment on the solutions (the figures the handouts quote).
#   tools/gpu_checks.sh [LOG_DIR] [tests|grades|all]   (default: gpu-check-logs/ all)
# "tests" runs the build and ./workbook test only, "grades" the build, both
# grades and the experiments: two shorter runs where one command is time-limited.
# Each step's full output goes to LOG_DIR; a summary is printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
logs="${1:-gpu-check-logs}"
part="${2:-all}"
case "$part" in tests|grades|all) ;; *) echo "gpu_checks: unknown part '$part' (tests, grades or all)" >&2; exit 1 ;; esac
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
if [[ "$part" != grades ]]; then
  step test ./workbook test -j 8
fi
if [[ "$part" != tests ]]; then
  step grade-solutions ./workbook grade --solutions --json "$logs/solutions-results.json" --junit "$logs/solutions-junit.xml" --color never
  step grade-skeletons ./workbook grade --json "$logs/skeletons-results.json" --junit "$logs/skeletons-junit.xml" --color never
  step wrong-solutions python3 tools/wrong_solutions.py run
  for lab in hello abc coalescing reductions atomics compaction prefix-sum radix-sort histograms lbvh; do
    step "bench-$lab" ./workbook bench "$lab" --solution
  done
fi

echo "GPU: $(cat "$logs/gpu.txt")"
printf '%s\n' "${summary[@]}"
[[ -f "$logs/test.log" ]] && grep -E "tests passed|Skipped [0-9]+ GPU|Skipped the docs" "$logs/test.log"
exit 0
