#!/usr/bin/env bash
# Maintainers' check on a machine with GPUs (the class-scale issue): 20 mixed
# submissions of lab 01 (8 references, 6 skeletons, 3 that do not compile,
# 2 wrong by one, 1 whose kernel hangs) graded by grade-batch with 1 worker
# and then with 2 (one per GPU where there are two; on one GPU both workers
# share it: say so when quoting the times), each into a folder of its own.
#   tools/batch_demo.sh [OUT_DIR] [--workers-only K]     (default: batch-demo/)
# Prints each run's gradebook, its wall time and its seconds per submission.
# The hang costs its own row only: the batch's --timeout stops it after 60 s.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mkdir -p "${1:-batch-demo}" && cd "${1:-batch-demo}" && pwd)"
only="${3:-}"
[[ "${2:-}" == --workers-only ]] || only=""
subs="$out/submissions"
rm -rf "$subs"

python3 - "$subs" <<'PY'
import sys, pathlib
subs = pathlib.Path(sys.argv[1])
reference = pathlib.Path("solutions/01-hello-world/hello.cu").read_text()
skeleton = pathlib.Path("labs/01-hello-world/hello.cu").read_text()
bound = "  if (global < n) {"
assert reference.count(bound) == 1, "the lab 01 solution changed: update tools/batch_demo.sh"
kinds = {
    "reference": reference,
    "skeleton": skeleton,
    "broken-build": reference.replace(bound, "  if (global < n) {{  // a stray brace: does not compile", 1),
    "off-by-one": reference.replace(bound, "  if (global <= n) {", 1),
    # A hang with a side effect (nvcc removes an empty spin on a volatile local).
    "hang": reference.replace(bound, "  if (n == 1000) { while (true) __nanosleep(1000000); }\n" + bound, 1),
}
plan = ["reference"] * 8 + ["skeleton"] * 6 + ["broken-build"] * 3 + ["off-by-one"] * 2 + ["hang"]
for index, kind in enumerate(plan, start=1):
    folder = subs / f"student-{index:02d}-{kind}" / "labs" / "01-hello-world"
    folder.mkdir(parents=True)
    (folder / "hello.cu").write_text(kinds[kind])
print(f"{len(plan)} submissions in {subs}")
PY

gpus=$(nvidia-smi -L 2>/dev/null | wc -l || echo 0)
echo "GPUs here: $gpus ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs))"
./workbook build >"$out/build.log" 2>&1

for workers in 1 2; do
  [[ -n "$only" && "$only" != "$workers" ]] && continue
  rm -rf "$out/workers-$workers"
  began=$SECONDS
  ./workbook grade-batch "$subs" 01 --out "$out/workers-$workers" --workers "$workers" --timeout 60 \
    >"$out/workers-$workers.log" 2>&1 || true
  seconds=$((SECONDS - began))
  echo "== $workers worker(s): $seconds s wall for 20 submissions ($(awk -v s="$seconds" 'BEGIN { printf "%.1f", s / 20 }') s each)"
  cat "$out/workers-$workers/gradebook.csv" 2>/dev/null || echo "(no gradebook: see $out/workers-$workers.log)"
  tail -4 "$out/workers-$workers/summary.txt" 2>/dev/null || true
done
