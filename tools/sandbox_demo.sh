#!/usr/bin/env bash
# Maintainers' check on a GPU machine (the sandbox issue): grade-batch over
# five lab 02 submissions, a reference, a skeleton and three hostile ones
# (tools/wrong_solutions/hostile.json: one reads another student's file, one
# deletes a gradebook, one connects to a port of this machine), once with the
# sandbox and once without it, and the seconds per submission of each.
#   tools/sandbox_demo.sh [OUT_DIR]      (default: sandbox-demo/)
# What must happen with the sandbox: the reference 12/12, the skeleton 0, each
# hostile one loses its round-trip points with its refusal in its results, the
# planted files unchanged and no connection. Without it the hostile ones keep
# full marks, and the bait shows what they did: why the sandbox is there.
# (The 200 GB one is left out: outside a sandbox it would take this machine's
# memory. tools/wrong_solutions.py run --hostile grades it, sandboxed.)
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mkdir -p "${1:-sandbox-demo}" && cd "${1:-sandbox-demo}" && pwd)"
rm -rf "$out/submissions" "$out/planted" "$out/sandboxed" "$out/unsandboxed"

# The bait: a folder outside every submission, and a port that counts connections.
python3 - "$out" <<'PY' &
import socket, sys, pathlib
out = pathlib.Path(sys.argv[1])
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
(out / "port").write_text(str(server.getsockname()[1]))
count = 0
while True:
    peer, _ = server.accept()
    count += 1
    (out / "connections").write_text(str(count))
    peer.close()
PY
listener=$!
trap 'kill $listener 2>/dev/null || true' EXIT
for _ in $(seq 50); do [[ -s "$out/port" ]] && break; sleep 0.1; done

plant() {
  rm -rf "$out/planted" "$out/connections"
  mkdir -p "$out/planted/other-student/labs/02-abc"
  echo "// another student's work" >"$out/planted/other-student/labs/02-abc/abc.cu"
  printf 'student,02-abc,total,max\nalice,12,12,12\n' >"$out/planted/gradebook.csv"
}

bait_report() {
  echo "bait after the $1 run:"
  [[ -f "$out/planted/other-student/labs/02-abc/abc.cu" ]] && echo "  another student's file: still there" ||
    echo "  another student's file: GONE"
  [[ -f "$out/planted/gradebook.csv" ]] && echo "  planted gradebook: still there" || echo "  planted gradebook: DELETED"
  echo "  connections to port $(cat "$out/port"): $(cat "$out/connections" 2>/dev/null || echo 0)"
}

python3 - "$out" <<'PY'
import sys, shutil, pathlib
sys.path.insert(0, "tools")
import wrong_solutions as w
out = pathlib.Path(sys.argv[1])
bait = {"planted": out / "planted", "port": (out / "port").read_text()}
subs = out / "submissions"
def put(name, text):
    (subs / name / "labs" / "02-abc").mkdir(parents=True)
    (subs / name / "labs" / "02-abc" / "abc.cu").write_text(text)
put("reference", pathlib.Path("solutions/02-abc/abc.cu").read_text())
put("skeleton", pathlib.Path("labs/02-abc/abc.cu").read_text())
chosen = {"sees another student's file": "hostile-reads", "deletes the gradebook": "hostile-gradebook",
          "connects to localhost": "hostile-connects"}
for mutation in w.load(w.HOSTILE)["02-abc"]:
    if mutation["name"] in chosen:
        put(chosen[mutation["name"]], w.mutated("02-abc", "abc", mutation, bait))
PY

run_batch() {  # run_batch NAME [ENV...]: grade-batch the five, time it
  local name="$1"
  shift
  plant
  local began=$SECONDS
  env "$@" ./workbook grade-batch "$out/submissions" 02 --out "$out/$name" --workers 1 >"$out/$name.log" 2>&1 || true
  local seconds=$((SECONDS - began))
  echo "== $name: $seconds s for 5 submissions ($(awk -v s="$seconds" 'BEGIN { printf "%.1f", s / 5 }') s each)"
  cat "$out/$name/gradebook.csv" 2>/dev/null || echo "(no gradebook: see $out/$name.log)"
  bait_report "$name"
}

./workbook build >"$out/build.log" 2>&1
run_batch sandboxed
# Without: no bwrap to be found, and the instructor allowed it.
run_batch unsandboxed WORKBOOK_SANDBOX_TOOL=/nonexistent/bwrap WORKBOOK_ALLOW_UNSANDBOXED=1 WORKBOOK_NO_INSTALL=1
for name in hostile-reads hostile-gradebook hostile-connects; do
  echo "== $name, sandboxed: why it lost points"
  grep -h -o "hostile file: [^\"]*" "$out/sandboxed/$name/results.json" 2>/dev/null | sort -u | head -3 || true
done
