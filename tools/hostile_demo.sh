#!/usr/bin/env bash
# Maintainers' check on a GPU machine (issue 14): a lab 02 file whose kernel
# hangs for one size and that floods stdout is graded in instructor mode. What
# must happen: only the hung test fails ("timed out: the test was stopped after
# 10 s"), every other lab 02 test passes, both speed items say "not scored:
# fails correctness", the logs stay a few MiB with a "dropped here" line, and
# no test process is left on the GPU.
#   tools/hostile_demo.sh [LOG_DIR]      (default: hostile-demo-logs/)
set -euo pipefail
cd "$(dirname "$0")/.."
# Grading a submission compiles it in a sandbox; without bubblewrap, grade anyway.
tools/sandboxed_compile.sh --probe || export WORKBOOK_ALLOW_UNSANDBOXED=1
logs="$(mkdir -p "${1:-hostile-demo-logs}" && cd "${1:-hostile-demo-logs}" && pwd)"
sub="$logs/submission"
mkdir -p "$sub/labs/02-abc"
cp solutions/02-abc/abc.cu "$sub/labs/02-abc/abc.cu"
python3 - "$sub/labs/02-abc/abc.cu" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
s = s.replace('#include <algorithm>\n', '#include <algorithm>\n#include <cstdio>\n', 1)
# A hang with a side effect (nvcc removes an empty spin on a volatile local).
hang = '  if (n == 33) { while (true) __nanosleep(1000000); }  // hangs for one size\n'
flood = '  for (int k = 0; k < 4000000; ++k) std::printf("flood line %d of a chatty student file\\n", k);\n'
body = '  if (i < n) d[i] = a[i] * b[i] + c[i];'
assert body in s, "the lab 02 solution changed: update tools/hostile_demo.sh"
s = s.replace(body, hang + body, 1)
copy_in = '  const workbook::DeviceBuffer<float> device_a = workbook::to_device(a);'
assert copy_in in s, "the lab 02 solution changed: update tools/hostile_demo.sh"
s = s.replace(copy_in, flood + copy_in, 1)
open(path, "w").write(s)
PY
python3 - "$logs/rubric.json" <<'PY'
import json, sys
rubric = json.load(open("grader/rubric.json"))
rubric["labs"]["02-abc"]["groups"][0]["test_timeout_s"] = 10
json.dump(rubric, open(sys.argv[1], "w"), indent=2)
PY
started=$SECONDS
TMPDIR="$logs" ./workbook grade abc --submission "$sub" --rubric "$logs/rubric.json" --color never \
  --json "$logs/results.json" 2>&1 | tee "$logs/grade.log" || true
echo "graded in $((SECONDS - started)) s"
echo "log folder size: $(du -sh "$logs"/workbook-grade-* | cut -f1)"
grep -a -h "dropped here" "$logs"/workbook-grade-*/02-abc/*.log | head -3 || echo "no 'dropped here' line (the flood was not capped?)"
nvidia-smi --query-compute-apps=pid,name --format=csv
