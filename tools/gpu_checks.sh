#!/usr/bin/env bash
# Maintainers' check on a GPU machine: build, the project's tests, the grade of
# the reference solutions and of the untouched skeletons, and every lab's
# experiment on the solutions (the figures the handouts quote).
#   tools/gpu_checks.sh [LOG_DIR] [tests|grades|trust|sanitize|wrong|repeat|sandbox|batch|ncu|explain|all]
#                                          (default: gpu-check-logs/ all)
# "tests" runs the build and ./workbook test only, "grades" the build, both
# grades and the experiments: two shorter runs where one command is time-limited.
# "trust" is what the grader issue asks to see on a GPU: the references under
# the four sanitizers, every wrong solution graded, and five grades of the
# references in the sandbox, whose totals must be equal;
# "sanitize", "wrong" and "repeat" are its parts, for calls of the device
# tool, which are limited to 10 minutes. On the H100 (2026-11-25) the build
# took 36-60 s, ./workbook test -j 8 155 s, one grade of the references
# 145-187 s, of the skeletons 99-142 s, the sanitizer grade 265 s, the
# hostile submissions 86-105 s, bench --all 158 s, ncu 5 s; the wrong
# solutions with --jobs 4 about 9 minutes (2026-11-23); batch on two H100s
# 217 s.
# "sandbox" is the sandbox issue's demonstration (tools/sandbox_demo.sh),
# "batch" the class-scale one (tools/batch_demo.sh: run it on two GPUs), "ncu"
# Nsight Compute's sector and DRAM counts of lab 03's copies (tools/ncu_lab03.sh).
# "explain" is issue 28's demonstration: the references graded with --explain
# in the sandbox (no rule may fire), and the wrong solutions that are slow or
# wrong on purpose under --explain (tools/wrong_solutions.py explain), each of
# which must be named for its cause.
# Each step's full output goes to LOG_DIR; a summary is printed at the end.
# Environment, for a GPU machine reached through a time-limited tool:
#   GPU_CHECKS_DEADLINE=S   stop starting steps S seconds after the start, and
#                           cut the running one there (its log is kept)
#   GPU_CHECKS_REPEATS=K    grades of the references in "repeat" (default 5)
#   GPU_CHECKS_TAR=FILE     tar LOG_DIR into FILE at the end (the device tool
#                           brings back few files)
# A bwrap carried in .deps/bwrap/ (tools/fetch_bwrap.sh) is used when the
# machine has none.
set -uo pipefail
cd "$(dirname "$0")/.."
logs="${1:-gpu-check-logs}"
part="${2:-all}"
case "$part" in tests|grades|trust|sanitize|wrong|repeat|sandbox|batch|ncu|explain|all) ;;
  *) echo "gpu_checks: unknown part '$part' (tests, grades, trust, sanitize, wrong, repeat, sandbox, batch, ncu, explain or all)" >&2; exit 1 ;;
esac
wants() {  # wants PART: whether this run includes PART
  [[ "$part" == "$1" || ("$part" == trust && ("$1" == sanitize || "$1" == wrong || "$1" == repeat)) ]]
}
mkdir -p "$logs"
summary=()
deadline="${GPU_CHECKS_DEADLINE:-0}"
if ! command -v bwrap >/dev/null && [[ -z "${WORKBOOK_SANDBOX_TOOL:-}" && -x .deps/bwrap/bwrap ]]; then
  export WORKBOOK_SANDBOX_TOOL="$PWD/.deps/bwrap/bwrap"
  if ldd "$WORKBOOK_SANDBOX_TOOL" | grep -q "not found"; then export LD_LIBRARY_PATH="$PWD/.deps/bwrap/lib"; fi
fi

step() {  # step NAME COMMAND...: run, log, time, remember the exit status
  local name="$1"
  shift
  local began=$SECONDS status=0 limit=()
  if ((deadline > 0)); then
    if ((deadline - SECONDS < 20)); then
      summary+=("$(printf '%-18s skipped: GPU_CHECKS_DEADLINE reached' "$name")")
      return
    fi
    limit=(timeout -k 5 "$((deadline - SECONDS))")
  fi
  "${limit[@]}" "$@" >"$logs/$name.log" 2>&1 || status=$?
  summary+=("$(printf '%-18s exit %-3s %4ss' "$name" "$status" "$((SECONDS - began))")")
}

nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader >"$logs/gpu.txt" 2>&1
step build ./workbook build
if [[ "$part" == tests || "$part" == all ]]; then
  step test ./workbook test -j 8
fi
if wants sanitize; then
  step sanitize ./workbook grade --solutions --sanitize --color never --json "$logs/sanitize-results.json"
fi
if wants wrong; then
  step wrong-solutions python3 tools/wrong_solutions.py run --jobs 4
  step hostile python3 tools/wrong_solutions.py run --hostile --jobs 1
fi
if [[ "$part" == sandbox ]]; then  # grade-batch of five, with and without the sandbox
  step sandbox-demo tools/sandbox_demo.sh "$logs/sandbox-demo"
fi
if [[ "$part" == ncu || "$part" == all ]]; then
  step ncu-lab03 tools/ncu_lab03.sh build/default/lab03_experiment_solution "$logs/ncu-lab03"
fi
if [[ "$part" == explain || "$part" == all ]]; then
  step explain-solutions ./workbook grade --solutions --sandbox --explain --color never \
    --json "$logs/explain-results.json"
  step explain-wrong python3 tools/wrong_solutions.py explain
fi
if [[ "$part" == batch ]]; then  # grade-batch of twenty, with 1 and 2 workers
  step batch-demo tools/batch_demo.sh "$logs/batch-demo"
fi
if wants repeat; then
  # --sandbox: each grade must run in the sandbox (it stops where none can be made).
  for run in $(seq "${GPU_CHECKS_REPEATS:-5}"); do
    step "repeat-$run" ./workbook grade --solutions --sandbox --color never
  done
  # The test programs' own logs of the last grade (gtest prints each test's
  # milliseconds): where a grade spends its time.
  programs=$(grep -h "^Logs of the test programs: " "$logs"/repeat-*.log | tail -1 | cut -d' ' -f6-)
  [[ -n "$programs" && -d "$programs" ]] && cp -r "$programs" "$logs/grade-program-logs"
  totals=$(grep -h "^Total" "$logs"/repeat-*.log | awk '{print $NF}' | sort -u)
  summary+=("the grades' totals: $(grep -h '^Total' "$logs"/repeat-*.log | awk '{print $NF}' | tr '\n' ' ')($(wc -l <<<"$totals") distinct)")
fi
if [[ "$part" == grades || "$part" == all ]]; then
  step grade-solutions ./workbook grade --solutions --json "$logs/solutions-results.json" --junit "$logs/solutions-junit.xml" --color never
  step grade-skeletons ./workbook grade --json "$logs/skeletons-results.json" --junit "$logs/skeletons-junit.xml" --color never
  step wrong-solutions python3 tools/wrong_solutions.py run --jobs 4
  for lab in hello abc coalescing reductions atomics compaction prefix-sum radix-sort histograms lbvh; do
    step "bench-$lab" ./workbook bench "$lab" --solution
  done
fi

echo "GPU: $(cat "$logs/gpu.txt")"
printf '%s\n' "${summary[@]}" | tee "$logs/summary.txt"
[[ -f "$logs/test.log" ]] && grep -E "tests passed|Skipped [0-9]+ GPU|Skipped the docs" "$logs/test.log"
if [[ -n "${GPU_CHECKS_TAR:-}" ]]; then tar czf "$GPU_CHECKS_TAR" -C "$(dirname "$logs")" "$(basename "$logs")"; fi
exit 0
