#!/usr/bin/env bash
# Test of ./workbook grade-batch (a whole class in instructor mode), run by
# ctest. A class of four: alice (a folder), bob (a .zip of his repository's
# folder), carol (a lab file that does not compile) and mallory (a .zip with a
# ../ member); only lab 01 is graded (its tests are the quickest to run: the
# test's own time goes into the batch, not into a lab), so only the grader and
# lab 01's tests are built. Checked: every student gets a row with a reason, a broken build or a
# bad zip costs only that student's row, a second run grades nothing again
# (resume), a lost status.json is graded again, the per-submission time limit
# stops a hang and everything it started, and a killed batch leaves nothing
# half-written. Without a GPU the first run records "no GPU" for each
# submission; the later runs then grade with WORKBOOK_GRADER_ASSUME_DEVICE=1
# (every lab test fails without a GPU: 0 points, but the whole graded path runs).
source "$(dirname "$0")/lib.sh"
# The part to run: "graded" (steps 1-3, which build and grade for real),
# "stand-ins" (steps 4-8, with stand-ins for ./workbook grade) or both (the
# default). ctest runs the two parts as two tests, side by side.
part="${1:-all}"
case "$part" in all | graded | stand-ins) ;; *) echo "usage: $0 [graded|stand-ins]" >&2; exit 2 ;; esac
unset WORKBOOK_BUILD_TARGET WORKBOOK_GRADER_ASSUME_DEVICE WORKBOOK_BATCH_GRADE_COMMAND
# The worker's build takes what the project's own build compiled (the grader,
# the harness, lab 01's tests); the students' files are compiled.
reuse_main_build
row() { grep "^$1," "$out/gradebook.csv"; }

subs="$work/submissions"
out="$work/out"
mkdir -p "$subs/alice/labs/01-hello-world" "$subs/carol" "$work/bob/bob-workbook/labs/01-hello-world"
cp "$ROOT/solutions/01-hello-world/hello.cu" "$subs/alice/labs/01-hello-world/hello.cu"
cp "$ROOT/solutions/01-hello-world/hello.cu" "$work/bob/bob-workbook/labs/01-hello-world/hello.cu"
echo "notes" >"$subs/notes.txt"
sed 's/return/retur n/' "$ROOT/solutions/01-hello-world/hello.cu" >"$subs/carol/hello.cu"
python3 - "$work/bob" "$subs/bob.zip" "$subs/mallory.zip" <<'PY'
import os, sys, zipfile
source, bob, mallory = sys.argv[1:]
with zipfile.ZipFile(bob, "w") as z:
    for folder, _, files in os.walk(source):
        for name in files:
            path = os.path.join(folder, name)
            z.write(path, os.path.relpath(path, source))
with zipfile.ZipFile(mallory, "w") as z:
    z.writestr("hello.cu", "// fine\n")
    z.writestr("../../escaped.cu", "// outside\n")
PY

# The GPUs grade-batch sees (CUDA_VISIBLE_DEVICES, else nvidia-smi -L).
have_gpu=$(cd "$ROOT/tools" && python3 -c "import grade_batch; print(min(1, len(grade_batch.visible_gpus()[0])))")
batch() { "$ROOT/workbook" grade-batch "$subs" hello --out "$out" --build-root "$work/build" --seed 4242; }

if [[ "$part" != stand-ins ]]; then
# 1. The first run: every student gets a row with a reason.
batch >"$work/run1.log" 2>&1
status=$?
[[ -f "$out/gradebook.csv" && -f "$out/summary.txt" ]] || fail "no gradebook or summary: $(tail -20 "$work/run1.log")"
for student in alice bob carol mallory; do
  row "$student" >/dev/null || fail "no row for $student in: $(cat "$out/gradebook.csv")"
done
[[ -e "$work/escaped.cu" || -e "$subs/escaped.cu" || -e "$out/escaped.cu" ]] && fail "mallory's ../ member was unpacked"
expect_in "$out/gradebook.csv" "mallory,,,10.00,failed,zip refused: member '../../escaped.cu' has '..'" "the bad zip"
expect_in "$out/summary.txt" "01-hello-world does not compile" "carol's broken file"
expect_in "$out/summary.txt" 'error: identifier "retur" is undefined' "carol's compiler error"
if ((have_gpu)); then
  [[ $status -eq 0 ]] || fail "exit status $status on a GPU machine: $(tail -20 "$work/run1.log")"
  row alice | grep -q ",graded," || fail "alice not graded on a GPU: $(row alice)"
else
  [[ $status -eq 2 ]] || fail "without a GPU the exit status should be 2, was $status"
  for student in alice bob carol; do
    row "$student" | grep -Eq ",error,\"?no GPU" || fail "$student's row should say no GPU: $(row "$student")"
  done
  [[ -f "$out/alice/status.json" && -f "$out/alice/grade.log" ]] || fail "alice's status.json or grade.log is missing"
  export WORKBOOK_GRADER_ASSUME_DEVICE=1 # from here on, the graded path (0 points without a GPU)
fi

# 2. Every row graded now; carol's other labs are graded, her broken one scores 0.
batch >"$work/run2.log" 2>&1 || fail "the second run failed: $(tail -20 "$work/run2.log")"
for student in alice bob carol; do
  row "$student" | grep -q ",10.00,graded," || fail "$student not graded: $(row "$student")"
  for file in results.json junit.xml row.csv grade.log status.json; do
    [[ -f "$out/$student/$file" ]] || fail "$student/$file is missing"
  done
done
row carol | grep -q "does not compile" || fail "carol's row does not say why: $(row carol)"
grep -q "does not compile" "$out/carol/results.json" || fail "carol's results.json does not tell her why"
grep -q "01-hello-world: labs/01-hello-world/hello.cu" "$out/bob/grade.log" || fail "bob's zip was not unwrapped: $(head "$out/bob/grade.log")"
expect_in "$out/summary.txt" "Submissions: 4: 3 graded, 1 failed, 0 not graded" "the summary"
expect_in "$out/summary.txt" "Totals of the graded: mean" "the summary"
head -1 "$out/gradebook.csv" | grep -qx "student,01-hello-world,total,max,status,reason" ||
  fail "the gradebook's header: $(head -1 "$out/gradebook.csv")"
[[ "$(cut -d, -f1 "$out/gradebook.csv" | tr '\n' ' ')" == "student alice bob carol mallory " ]] ||
  fail "the rows are not in the students' order: $(cat "$out/gradebook.csv")"
compgen -G "$out/*/.partial-*" >/dev/null && fail "a temporary folder was left behind"

# 3. Resume: nothing is graded again; a student whose status.json is lost (a kill
#    between the results and the status) is.
stat -c '%Y %n' "$out"/*/status.json >"$work/before"
batch >"$work/run3.log" 2>&1 || fail "the third run failed: $(tail -20 "$work/run3.log")"
expect_in "$work/run3.log" "4 submissions in $subs, 4 graded before" "the resumed run"
grep -q "^\[" "$work/run3.log" && fail "the third run graded again: $(grep '^\[' "$work/run3.log")"
stat -c '%Y %n' "$out"/*/status.json | cmp -s - "$work/before" || fail "status.json files were rewritten"
rm "$out/bob/status.json"
batch >"$work/run4.log" 2>&1 || fail "the fourth run failed: $(tail -20 "$work/run4.log")"
grep '^\[' "$work/run4.log" | grep -qv "bob:" && fail "more than bob was graded again: $(grep '^\[' "$work/run4.log")"
grep -q "^\[4/4\] bob: graded" "$work/run4.log" || fail "bob was not graded again: $(cat "$work/run4.log")"
"$ROOT/workbook" grade-batch --gather "$out" >"$work/gather.log" 2>&1 || fail "--gather failed: $(cat "$work/gather.log")"
expect_in "$work/gather.log" "Submissions: 4: 3 graded, 1 failed, 0 not graded" "--gather"
fi

if [[ "$part" != graded ]]; then
# 4. Unsafe zips, each refused for its student alone (no build: refused before it).
python3 - "$work/zips" <<'PY'
import os, stat, sys, zipfile
folder = sys.argv[1]
os.makedirs(folder)
with zipfile.ZipFile(f"{folder}/abs.zip", "w") as z:
    z.writestr("/etc/evil.cu", "x")
with zipfile.ZipFile(f"{folder}/link.zip", "w") as z:
    info = zipfile.ZipInfo("hello.cu")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(info, "/etc/passwd")
with zipfile.ZipFile(f"{folder}/big.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("hello.cu", b"\0" * (3 << 20))
open(f"{folder}/junk.zip", "w").write("not a zip")
PY
for zip in abs link big junk; do
  python3 "$ROOT/tools/grade_batch.py" one "$work/zips/$zip.zip" --out "$work/zips-out" --max-unpacked-mb 1 hello \
    --build-dir "$work/build/unused" >"$work/$zip.log" 2>&1 || fail "one $zip.zip: $(cat "$work/$zip.log")"
done
expect_in "$work/zips-out/abs/status.json" "is an absolute path" "an absolute member"
expect_in "$work/zips-out/link/status.json" "is a symbolic link" "a symlink member"
expect_in "$work/zips-out/big/status.json" "unpacks to more than 1 MiB" "a zip bomb"
expect_in "$work/zips-out/junk/status.json" "not a readable zip file" "a file that is no zip"
[[ -e /etc/evil.cu || -e "$work/build/unused" ]] && fail "a refused zip was unpacked or built"

# 5. A hang: the wall-clock limit stops it and everything it started, even a
#    process that left its process group; the row says "timed out". A stand-in
#    for ./workbook hangs (WORKBOOK_BATCH_GRADE_COMMAND, for these tests only).
cat >"$work/hang" <<'SH'
#!/usr/bin/env bash
setsid sleep 1000 &
echo $! >"$HANG_PIDS/escaped"
echo $$ >"$HANG_PIDS/shell"
sleep 1000
SH
chmod +x "$work/hang"
mkdir -p "$work/pids" "$work/hang-subs/dave"
cp "$ROOT/labs/01-hello-world/hello.cu" "$work/hang-subs/dave/"
alive() { [[ -r /proc/$1/stat ]] && ! grep -q ') Z ' "/proc/$1/stat"; }
left_running() { # WHAT: fails when a process the stand-in started is still alive (and ends it)
  [[ -s "$work/pids/escaped" && -s "$work/pids/shell" ]] || fail "$1: the stand-in did not run"
  rm -f "$work/left"
  cat "$work/pids/escaped" "$work/pids/shell" 2>/dev/null | while read -r pid; do
    alive "$pid" && echo "$pid" >>"$work/left"
  done
  if [[ -s "$work/left" ]]; then
    fail "$1: processes $(tr '\n' ' ' <"$work/left")are still running"
    xargs kill -9 <"$work/left"
  fi
}
HANG_PIDS="$work/pids" WORKBOOK_BATCH_GRADE_COMMAND="$work/hang" timeout 120 \
  python3 "$ROOT/tools/grade_batch.py" one "$work/hang-subs/dave" --out "$work/hang-out" --timeout 3 hello \
  --build-dir "$work/build/hang" >"$work/hang.log" 2>&1 || fail "one with a hang: $(cat "$work/hang.log")"
expect_in "$work/hang-out/dave/status.json" "timed out: the build and grading took more than 3 s" "a hang"
left_running "a hang"

# 6. A batch killed while grading: nothing of that student is final, nothing keeps
#    running; the next run grades it.
rm -f "$work/pids"/*
HANG_PIDS="$work/pids" WORKBOOK_BATCH_GRADE_COMMAND="$work/hang" \
  python3 "$ROOT/tools/grade_batch.py" batch "$work/hang-subs" hello --out "$work/kill-out" \
  --build-root "$work/build" >"$work/kill.log" 2>&1 &
batch_pid=$!
for _ in $(seq 100); do [[ -s "$work/pids/shell" ]] && break; sleep 0.1; done
kill -TERM "$batch_pid"
wait "$batch_pid"
status=$?
[[ $status -eq 143 ]] || fail "a killed batch should exit with 143, not $status: $(cat "$work/kill.log")"
[[ -e "$work/kill-out/dave/status.json" ]] && fail "the interrupted grading wrote a status.json"
expect_in "$work/kill-out/gradebook.csv" "dave,,,10.00,error,not graded yet" "the interrupted batch's gradebook"
sleep 0.5
left_running "a killed batch"

# 7. The Slurm array script, run here as two array tasks of two submissions
#    each (CHUNK=2), into one OUT; then --gather builds the gradebook. A stand-in
#    for ./workbook grade writes a graded submission's three reports.
cat >"$work/fake-grade" <<'SH'
#!/usr/bin/env bash
while [[ $# -gt 0 ]]; do
  case "$1" in
    --json) json="$2" ;;
    --junit) junit="$2" ;;
    --csv) csv="$2" ;;
    --student) student="$2" ;;
  esac
  shift
done
echo '{"score": 7.0, "execution_time": 1.5, "output": "graded by a stand-in", "tests": []}' >"$json"
echo '<testsuites/>' >"$junit"
printf 'student,01-hello-world,total,max\n%s,7.00,7.00,10.00\n' "$student" >"$csv"
echo "device=${CUDA_VISIBLE_DEVICES:-none} build=$WORKBOOK_BUILD_DIR"
sleep "${FAKE_GRADE_SECONDS:-0}"
SH
chmod +x "$work/fake-grade"
WORKBOOK_BATCH_GRADE_COMMAND="$work/fake-grade" "$ROOT/workbook" grade-batch "$work/hang-subs" hello \
  --out "$work/kill-out" --build-root "$work/build" >"$work/after-kill.log" 2>&1 ||
  fail "the run after the kill: $(cat "$work/after-kill.log")"
expect_in "$work/kill-out/gradebook.csv" "dave,7.00,7.00,10.00,graded," "the run after the kill"
python3 "$ROOT/tools/grade_batch.py" list "$subs" --chunk 2 >"$work/list.out" 2>"$work/list.err"
expect_in "$work/list.err" "sbatch --array=0-1" "the array range"
[[ "$(cut -f1 "$work/list.out" | tr '\n' ' ')" == "alice bob carol mallory " ]] || fail "list: $(cat "$work/list.out")"
for task in 0 1; do
  (cd "$work" && SLURM_ARRAY_TASK_ID=$task SLURM_SUBMIT_DIR="$ROOT" CHUNK=2 WORKBOOK_BATCH_BUILD_ROOT="$work/build" \
    WORKBOOK_BATCH_GRADE_COMMAND="$work/fake-grade" bash "$ROOT/tools/slurm/grade_array.sbatch" "$subs" \
    "$work/slurm-out" hello --seed 4242 >"$work/task$task.log" 2>&1) || fail "array task $task: $(cat "$work/task$task.log")"
done
expect_in "$work/task0.log" "alice: graded 7.00/10.00" "array task 0"
expect_in "$work/task1.log" "mallory: failed: zip refused" "array task 1"
grep -q "alice\|bob" "$work/task1.log" && fail "task 1 graded task 0's students: $(cat "$work/task1.log")"
[[ -e "$work/slurm-out/gradebook.csv" ]] && fail "an array task wrote the gradebook"
"$ROOT/workbook" grade-batch --gather "$work/slurm-out" >"$work/slurm-gather.log" 2>&1 ||
  fail "--gather after the array: $(cat "$work/slurm-gather.log")"
expect_in "$work/slurm-out/gradebook.csv" "bob,7.00,7.00,10.00,graded," "the gathered gradebook"
expect_in "$work/slurm-gather.log" "Submissions: 4: 3 graded, 1 failed, 0 not graded" "the gathered summary"

# 8. One worker per GPU that nvidia-smi -L lists (a stand-in lists two), each
#    pinned to its GPU with its own build folder.
mkdir -p "$work/stub"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)"\necho "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-b)"\n' \
  >"$work/stub/nvidia-smi"
chmod +x "$work/stub/nvidia-smi"
env -u CUDA_VISIBLE_DEVICES PATH="$work/stub:$PATH" FAKE_GRADE_SECONDS=1 WORKBOOK_BATCH_GRADE_COMMAND="$work/fake-grade" \
  "$ROOT/workbook" grade-batch "$subs" hello --out "$work/gpus-out" --build-root "$work/build" >"$work/gpus.log" 2>&1 ||
  fail "the two-GPU batch: $(cat "$work/gpus.log")"
expect_in "$work/gpus.log" "worker 0: GPU 0, worker 1: GPU 1" "the workers' plan"
cat "$work/gpus-out"/*/grade.log >"$work/gpus-seen"
expect_in "$work/gpus-seen" "device=0 build=$work/build/batch-worker-0" "worker 0"
expect_in "$work/gpus-seen" "device=1 build=$work/build/batch-worker-1" "worker 1"
fi

reused_summary
finish "grade-batch ($part): every student has a row and a reason, bad zips and broken files cost only their row, resumes, stops hangs"
