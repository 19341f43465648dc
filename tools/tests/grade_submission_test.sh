#!/usr/bin/env bash
# Test of ./workbook grade --submission (instructor mode), run by ctest: only
# the student files of a submission are staged, everything else it changed is
# listed as ignored, and the build compiles the staged file against the
# instructor's contract, never the submission's. (Grading itself needs a GPU.)
source "$(dirname "$0")/lib.sh"

# A student's repository: lab 02 done, its test and contract tampered with, an
# extra file; lab 04 handed in flat, as an upload would be; a symlink for lab 05.
sub="$work/student"
mkdir -p "$sub/labs/02-abc/tests" "$sub/labs/05-atomics"
cp "$ROOT/solutions/02-abc/abc.cu" "$sub/labs/02-abc/abc.cu"
echo '#error "the submission'"'"'s contract was used"' >"$sub/labs/02-abc/abc.cuh"
echo "// every test passes" >"$sub/labs/02-abc/tests/abc_test.cu"
echo "notes" >"$sub/notes.txt"
cp "$ROOT/solutions/04-reductions/reductions.cu" "$sub/reductions.cu"
ln -s /etc/hostname "$sub/labs/05-atomics/atomics.cu"

build="$work/build"
WORKBOOK_BUILD_DIR="$build" WORKBOOK_BUILD_TARGET=lab02_student "$ROOT/workbook" grade --submission "$sub" \
  >"$work/grade.log" 2>&1
# The grader itself was not built (one target only), so grade stops there.
stage="$build/submission-files"
expect() { expect_in "$work/grade.log" "$1" "grade --submission"; }
expect "02-abc: labs/02-abc/abc.cu"
expect "04-reductions: reductions.cu"
expect "01-hello-world: no file; graded as the untouched skeleton"
expect "05-atomics: labs/05-atomics/atomics.cu is a symbolic link, not a file: refused"
expect "labs/02-abc/tests/abc_test.cu (differs from the instructor's copy)"
expect "labs/02-abc/abc.cuh (differs from the instructor's copy)"
expect "notes.txt (not in the instructor's tree)"
cmp -s "$stage/labs/02-abc/abc.cu" "$ROOT/solutions/02-abc/abc.cu" || fail "lab 02's file was not staged"
cmp -s "$stage/labs/04-reductions/reductions.cu" "$ROOT/solutions/04-reductions/reductions.cu" ||
  fail "lab 04's flat file was not staged"
cmp -s "$stage/labs/05-atomics/atomics.cu" "$ROOT/labs/05-atomics/atomics.cu" ||
  fail "the symlinked lab 05 should be graded as the skeleton"
[[ -e "$stage/labs/02-abc/abc.cuh" || -e "$stage/labs/02-abc/tests" ]] && fail "more than the student file was staged"
[[ -f "$build/lab02_student.a" || -f "$build/liblab02_student.a" ]] ||
  fail "lab 02 did not build from the staged file against the instructor's contract: $(tail -5 "$work/grade.log")"
grep -q "submission-files/labs/02-abc/abc.cu" <(ninja -C "$build" -t commands lab02_student) ||
  fail "lab02_student is not compiled from the staged file"
grep -qF "\"student_root\": \"$stage\"" "$build/workbook-labs.json" || fail "the manifest does not name the staged files"

# Grading the same submission again: unchanged student files keep their time
# stamps (nothing recompiles), and a stray file beside one is removed.
before=$(stat -c %Y "$stage/labs/02-abc/abc.cu")
touch -d '2020-01-01' "$stage/labs/02-abc/abc.cu"
echo '#error "stray"' >"$stage/labs/02-abc/abc.cuh"
WORKBOOK_BUILD_DIR="$build" WORKBOOK_BUILD_TARGET=lab02_student "$ROOT/workbook" grade --submission "$sub" \
  >"$work/again.log" 2>&1
[[ "$(stat -c %Y "$stage/labs/02-abc/abc.cu")" == "$(date -d 2020-01-01 +%s)" ]] ||
  fail "an unchanged student file was copied again (it would recompile)"
[[ -e "$stage/labs/02-abc/abc.cuh" ]] && fail "a stray file beside a staged student file was left there"
[[ -n "$before" ]] || fail "no staged lab 02 file"

# The student files are compiled in a sandbox: an #include of a file outside
# the instructor's labs/ and common/ fails, and its text never reaches the log
# (the file holds an #error that would print it).
secret="$work/secret/answers.h"
mkdir -p "$work/secret" "$work/sneaky/labs/02-abc"
echo '#error "the instructor secret answers"' >"$secret"
{
  echo "#include \"$secret\""
  cat "$ROOT/solutions/02-abc/abc.cu"
} >"$work/sneaky/labs/02-abc/abc.cu"
if "$ROOT/tools/sandboxed_compile.sh" --probe; then
  WORKBOOK_BUILD_DIR="$work/build-sneaky" WORKBOOK_BUILD_TARGET=lab02_student "$ROOT/workbook" grade \
    --submission "$work/sneaky" >"$work/sneaky.log" 2>&1 && fail "a file including $secret compiled"
  grep -q "instructor secret answers" "$work/sneaky.log" && fail "the compiler read a file outside the sandbox"
  grep -q "answers.h: No such file or directory" "$work/sneaky.log" ||
    fail "no 'No such file' for the hidden include: $(tail -5 "$work/sneaky.log")"
else
  echo "no bubblewrap sandbox here: only the refusal is checked"
fi
# Where no sandbox can be made, instructor mode refuses unless told --allow-unsandboxed.
(
  unset WORKBOOK_ALLOW_UNSANDBOXED
  WORKBOOK_SANDBOX_TOOL=/nonexistent/bwrap WORKBOOK_NO_INSTALL=1 WORKBOOK_BUILD_DIR="$work/build-refused" \
    WORKBOOK_BUILD_TARGET=lab02_student "$ROOT/workbook" grade --submission "$sub" >"$work/refused.log" 2>&1
) && fail "instructor mode graded without a sandbox and without --allow-unsandboxed"
expect_in "$work/refused.log" "in a bubblewrap sandbox, and none can be made here" "the refusal"
expect_in "$work/refused.log" "./workbook grade --allow-unsandboxed --submission DIR" "the refusal"
# grade-batch refuses once, before it builds or records anything.
mkdir -p "$work/class/alice"
cp -r "$sub/labs" "$work/class/alice/"
(
  unset WORKBOOK_ALLOW_UNSANDBOXED
  WORKBOOK_SANDBOX_TOOL=/nonexistent/bwrap WORKBOOK_NO_INSTALL=1 \
    "$ROOT/workbook" grade-batch "$work/class" --out "$work/class-out" >"$work/batch-refused.log" 2>&1
) && fail "grade-batch graded without a sandbox and without --allow-unsandboxed"
expect_in "$work/batch-refused.log" "./workbook grade-batch --allow-unsandboxed SUBMISSIONS_DIR" "grade-batch's refusal"
[[ ! -e "$work/class-out" ]] || fail "grade-batch wrote $work/class-out although it refused to grade"

# The instructor's own tree is refused as a submission, and so is a missing folder.
"$ROOT/workbook" grade --submission "$work/nowhere" >"$work/missing.log" 2>&1 && fail "a missing folder was accepted"
grep -q "no such folder" "$work/missing.log" || fail "no message for a missing folder: $(cat "$work/missing.log")"

finish "grade --submission: only the student files staged, the rest listed, built against the instructor's contract in a sandbox"
