#!/usr/bin/env bash
# Maintainers' check on a GPU machine (grader issue, sanitizer mode): a lab 02
# file whose one-thread-per-element kernel also reads a[n], one float past the
# input, and then ignores it. Its results are right, so the ordinary grade
# gives full correctness points; `--sanitize=memcheck` must fail exactly the
# tests whose sizes leave a thread at i == n (n not a multiple of the block),
# quoting memcheck's "Invalid __global__ read" with the kernel and source line.
#   tools/sanitizer_demo.sh [LOG_DIR]      (default: sanitizer-demo-logs/)
set -euo pipefail
cd "$(dirname "$0")/.."
# Grading a submission compiles it in a sandbox; without bubblewrap, grade anyway.
tools/sandboxed_compile.sh --probe || export WORKBOOK_ALLOW_UNSANDBOXED=1
logs="$(mkdir -p "${1:-sanitizer-demo-logs}" && cd "${1:-sanitizer-demo-logs}" && pwd)"
sub="$logs/submission"
mkdir -p "$sub/labs/02-abc"
cp solutions/02-abc/abc.cu "$sub/labs/02-abc/abc.cu"
python3 - "$sub/labs/02-abc/abc.cu" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
body = '  if (i < n) d[i] = a[i] * b[i] + c[i];'
assert body in s, "the lab 02 solution changed: update tools/sanitizer_demo.sh"
# Reads one element too many (i <= n) but never uses it: invisible to the tests.
wrong = ('  const float a_i = i <= n ? a[i] : 0.0f;  // off by one: reads a[n]\n'
         '  if (i < n) d[i] = a_i * b[i] + c[i];')
open(path, "w").write(s.replace(body, wrong, 1))
PY
for mode in plain sanitize; do
  extra=()
  [[ $mode == sanitize ]] && extra=(--sanitize=memcheck)
  TMPDIR="$logs" ./workbook grade abc --submission "$sub" "${extra[@]}" --color never \
    --json "$logs/results-$mode.json" >"$logs/grade-$mode.log" 2>&1 || true
  echo "== $mode"
  sed -n '/^Lab /,/^Total/p' "$logs/grade-$mode.log"
done
echo "== the first failing test under memcheck"
sed -n '/^Failing tests/,/^$/p' "$logs/grade-sanitize.log" | head -12
grep -a "memcheck:" "$logs/grade-sanitize.log" || true
