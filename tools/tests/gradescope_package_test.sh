#!/usr/bin/env bash
# End-to-end test of the Gradescope package, without Gradescope, run by ctest:
# make the zip, unpack it as Gradescope would into a fake /autograder, run
# setup.sh and run_autograder on a fake submission, and check results.json.
# Without a GPU the grader cannot grade, and results.json must say so; with
# one, it must hold the graded tests. (Only the targets lab 02 needs are built,
# to keep the test quick.)
source "$(dirname "$0")/lib.sh"
# The package's own build folder, not the caller's (./workbook test run with WORKBOOK_BUILD_DIR).
unset WORKBOOK_BUILD_DIR
# Each step needs the one before: the first failure ends the test.
abort() {
  fail "$@"
  exit 1
}

python3 "$ROOT/tools/make_gradescope_package.py" "$work/autograder.zip" --seed 424242 --labs abc >"$work/make.log" 2>&1 ||
  abort "the package was not made: $(cat "$work/make.log")"
# An unpacked copy of the tree (no .git, as a download or a copied folder
# is) is packaged the same: every file of the checkout's package is there.
unpacked="$work/unpacked"
mkdir -p "$unpacked"
(cd "$ROOT" && tar --exclude=./.git --exclude=./build --exclude=./.deps --exclude=./grade-reports -cf - .) |
  tar -x -C "$unpacked"
python3 "$unpacked/tools/make_gradescope_package.py" "$work/unpacked.zip" --labs abc >"$work/unpacked.log" 2>&1 ||
  abort "an unpacked tree was not packaged: $(cat "$work/unpacked.log")"
python3 - "$work/autograder.zip" "$work/unpacked.zip" <<'PY' || fail "the unpacked tree's package lacks files of the checkout's"
import sys, zipfile
checkout, unpacked = (set(zipfile.ZipFile(path).namelist()) for path in sys.argv[1:])
missing = sorted(checkout - unpacked - {"gradescope/seed"})
if missing:
    sys.exit("missing: " + ", ".join(missing[:10]))
PY
"$unpacked/tools/release_student_tree.sh" "$work/head-release" --head >"$work/head.log" 2>&1 &&
  fail "--head released a tree that is not a git checkout"
expect_in "$work/head.log" "--head needs a git checkout" "--head without git"
ag="$work/autograder"
mkdir -p "$ag/source" "$ag/submission" "$ag/results"
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$work/autograder.zip" "$ag/source"
# extractall drops the permission bits; Gradescope's unzip keeps them: restore them from the zip.
python3 - "$work/autograder.zip" "$ag/source" <<'PY'
import os, sys, zipfile
for info in zipfile.ZipFile(sys.argv[1]).infolist():
    mode = info.external_attr >> 16
    if mode:
        os.chmod(os.path.join(sys.argv[2], info.filename), mode & 0o777)
PY
[[ -e "$ag/source/solutions" ]] && abort "the package contains the solutions"
[[ -x "$ag/source/run_autograder" && -f "$ag/source/setup.sh" ]] || abort "setup.sh or an executable run_autograder is missing"
[[ "$(cat "$ag/source/gradescope/seed")" == 424242 ]] || abort "the seed is not in the package"
[[ "$(cat "$ag/source/gradescope/labs")" == abc ]] || abort "the assignment's labs are not in the package"

export AUTOGRADER_ROOT="$ag" WORKBOOK_BUILD_TARGET="workbook-grader lab02_tests_student"
# The package's build takes what the project's own build compiled from the
# same files (the grader, the harness); the student file is compiled.
reuse_main_build
bash "$ag/source/setup.sh" >"$work/setup.log" 2>&1 || abort "setup.sh failed: $(tail -20 "$work/setup.log")"

cp "$ROOT/solutions/02-abc/abc.cu" "$ag/submission/abc.cu" # an upload: the file at the top
"$ag/source/run_autograder" >"$work/run.log" 2>&1 || abort "run_autograder failed: $(tail -20 "$work/run.log")"
grep -q "02-abc: abc.cu" "$work/run.log" || abort "the submission's file was not found: $(head -20 "$work/run.log")"
python3 - "$ag/results/results.json" <<'PY' || exit 1
import json, subprocess, sys
results = json.load(open(sys.argv[1]))
assert "score" in results and "output" in results and isinstance(results.get("tests"), list), results
have_gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0 if __import__("shutil").which("nvidia-smi") else False
if results["tests"]:
    names = [t["name"] for t in results["tests"]]
    assert names and all(n.startswith("02-abc: ") for n in names), names
    print(f"graded: {results['score']} points, {len(names)} tests")
else:
    assert not have_gpu, "a GPU machine produced no graded tests: " + results["output"][:500]
    assert "no NVIDIA GPU" in results["output"], results["output"][:500]
    assert results["score"] == 0
    print("no GPU: results.json says so, 0 points")
PY
reused_summary
echo "Gradescope package: made, set up, run on a submission; results.json written"
