#!/usr/bin/env bash
# Test of ./workbook pack and of the Colab notebook's way in without a repository
# address (no GPU needed): the zip that pack makes holds the course (in the full
# repository: the students' release, no solutions/) with ./workbook executable;
# the notebook's script (tools/notebook_script.py --emit-script), given the zip
# through WORKBOOK_ZIP as the upload, unpacks it and finds lab 01, stopped before
# the build (WORKBOOK_NOTEBOOK_STOP_BEFORE=4); and it refuses unsafe or wrong zips
# with a message that says what to do, leaving nothing behind.
source "$(dirname "$0")/lib.sh"
unset WORKBOOK_ZIP WORKBOOK_REPO_URL WORKBOOK_DIR WORKBOOK_LAB WORKBOOK_NOTEBOOK_STOP_BEFORE
export WORKBOOK_NOTEBOOK_SKIP_GPU_CHECK=1

# 1. pack's help and bad arguments.
"$ROOT/workbook" pack --help >"$work/help.txt" 2>&1 || fail "pack --help exited with $?"
expect_in "$work/help.txt" "usage: ./workbook pack [OUT.zip]" "pack --help"
"$ROOT/workbook" pack --frobnicate >"$work/bad.txt" 2>&1 && fail "pack accepted an unknown option"
expect_in "$work/bad.txt" "unknown option '--frobnicate' (see ./workbook pack --help)" "pack's unknown option"
"$ROOT/workbook" pack "$work/course.tar" >"$work/bad.txt" 2>&1 && fail "pack accepted a name without .zip"
expect_in "$work/bad.txt" "give a name that ends in .zip" "pack's name without .zip"

# 2. The zip.
"$ROOT/workbook" pack "$work/course.zip" >"$work/pack.log" 2>&1 || fail "pack failed: $(tail -20 "$work/pack.log")"
expect_in "$work/pack.log" "Packed " "pack's report"
expect_in "$work/pack.log" "Step 3 shows an upload button: choose this zip." "pack says how to use the zip in Colab"
python3 - "$work/course.zip" "$([[ -d "$ROOT/solutions" ]] && echo full || echo release)" <<'PY' || fail "the zip's contents"
import stat, sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
names = archive.namelist()
problems = []
if any(not name.startswith("cuda-workbook/") for name in names):
    problems.append("a member outside cuda-workbook/")
mode = archive.getinfo("cuda-workbook/workbook").external_attr >> 16
if not mode & stat.S_IXUSR:
    problems.append(f"cuda-workbook/workbook has mode {oct(mode)}, not executable")
if "cuda-workbook/labs/01-hello-world/hello.cu" not in names:
    problems.append("no labs/01-hello-world/hello.cu")
if sys.argv[2] == "full" and any(name.startswith("cuda-workbook/solutions/") for name in names):
    problems.append("the students' zip holds solutions/")
if not archive.comment.startswith(b"CUDA Workbook"):
    problems.append(f"the zip's comment is {archive.comment!r}")
for problem in problems:
    print("the zip:", problem)
sys.exit(1 if problems else 0)
PY

# 3. The notebook's script, the zip standing for the upload, stopped before the build.
python3 "$ROOT/tools/notebook_script.py" --emit-script >"$work/nb.py" 2>"$work/emit.log" ||
  fail "--emit-script to standard output failed: $(cat "$work/emit.log")"
mkdir -p "$work/run"
(cd "$work/run" && WORKBOOK_ZIP="$work/course.zip" WORKBOOK_NOTEBOOK_STOP_BEFORE=4 python3 "$work/nb.py") \
  >"$work/run.log" 2>&1 || fail "the notebook's script failed on the zip: $(tail -20 "$work/run.log")"
course="$work/run/cuda-workbook"
expect_in "$work/run.log" "Unpacked " "the script unpacks the zip"
expect_in "$work/run.log" "Lab 01-hello-world: your file is $course/labs/01-hello-world/hello.cu" "the script finds lab 01"
expect_in "$work/run.log" "stopped before step 4" "WORKBOOK_NOTEBOOK_STOP_BEFORE=4"
[[ -x "$course/workbook" ]] || fail "$course/workbook is missing or not executable"
[[ -f "$course/labs/01-hello-world/hello.cu" ]] || fail "no labs/01-hello-world/hello.cu in the unpacked course"
if [[ -d "$ROOT/solutions" && -e "$course/solutions" ]]; then fail "the unpacked students' course holds solutions/"; fi
[[ -z "$(find "$work/run" -maxdepth 1 -name '.*unpacking*' -print -quit)" ]] || fail "the unpacking folder was left"
"$course/workbook" --help >"$work/course-help.txt" 2>&1 || fail "the unpacked ./workbook --help failed"
if command -v git >/dev/null; then
  [[ -z "$(git -C "$course" status --porcelain 2>&1)" ]] || fail "the unpacked course is not one clean git commit"
fi
# Run again: the course is kept (with the student's edits).
echo "// my edit" >>"$course/labs/01-hello-world/hello.cu"
(cd "$work/run" && WORKBOOK_ZIP="$work/course.zip" WORKBOOK_NOTEBOOK_STOP_BEFORE=4 python3 "$work/nb.py") \
  >"$work/again.log" 2>&1 || fail "the script's second run failed: $(tail -20 "$work/again.log")"
expect_in "$work/again.log" "The course is already in $course" "a second run keeps the course"
grep -q "// my edit" "$course/labs/01-hello-world/hello.cu" || fail "a second run lost the student's edit"

# 4. pack in the unpacked course (a students' release): as it is; --full refused where there are no solutions.
if [[ -d "$ROOT/solutions" ]]; then
  "$course/workbook" pack "$work/again.zip" >"$work/repack.log" 2>&1 ||
    fail "pack in the students' release failed: $(tail -20 "$work/repack.log")"
  expect_in "$work/repack.log" "Packed this course as it is" "pack in the students' release"
  "$course/workbook" pack --full "$work/full.zip" >"$work/repack.log" 2>&1 && fail "pack --full ran in a release"
  expect_in "$work/repack.log" "./workbook pack (without --full) zips this course as it is." "pack --full in a release"
  "$ROOT/workbook" pack --full "$work/full.zip" >"$work/full.log" 2>&1 || fail "pack --full: $(tail "$work/full.log")"
  python3 -c "import sys, zipfile; n = zipfile.ZipFile(sys.argv[1]).namelist(); \
sys.exit(0 if any(x.startswith('cuda-workbook/solutions/') for x in n) else 1)" "$work/full.zip" ||
    fail "pack --full left out solutions/"
fi

# 5. Zips the script must take: a folder zipped elsewhere (no Unix modes, a folder of another name).
# 6. And zips it must refuse, saying why, and leaving nothing behind.
python3 - "$work" "$work/course.zip" <<'PY' || fail "could not make the test zips"
import sys, zipfile
work, course = sys.argv[1], zipfile.ZipFile(sys.argv[2])
def make(name, members, system=3):
    with zipfile.ZipFile(f"{work}/{name}.zip", "w") as out:
        for member, data in members:
            info = zipfile.ZipInfo(member)
            info.create_system = system
            if system == 3:
                info.external_attr = 0o644 << 16
            out.writestr(info, data)
files = [(n, course.read(n)) for n in course.namelist()]
make("windows", [(n.replace("cuda-workbook/", "my-copy/course-main/", 1), d) for n, d in files], system=0)
make("dotdot", files + [("cuda-workbook/../evil.txt", b"x")])
make("absolute", [("/tmp/evil.txt", b"x")] + files)
make("nocourse", [("notes/readme.txt", b"hello")])
make("twocourses", [(n.replace("cuda-workbook/", p, 1), d) for p in ("a/", "b/") for n, d in files])
with zipfile.ZipFile(f"{work}/symlink.zip", "w") as out:
    info = zipfile.ZipInfo("cuda-workbook/labs/link")
    info.create_system = 3
    info.external_attr = (0o120777) << 16
    out.writestr(info, "/etc/passwd")
    for n, d in files:
        out.writestr(n, d)
open(f"{work}/notazip.zip", "w").write("not a zip\n")
PY
run_zip() { # run_zip NAME: the script on $work/NAME.zip in a folder of its own; output in $work/NAME.log
  mkdir -p "$work/run-$1"
  (cd "$work/run-$1" && WORKBOOK_ZIP="$work/$1.zip" WORKBOOK_NOTEBOOK_STOP_BEFORE=4 python3 "$work/nb.py") \
    >"$work/$1.log" 2>&1
}
run_zip windows || fail "a zip without Unix modes failed: $(tail -20 "$work/windows.log")"
expect_in "$work/windows.log" "(its folder my-copy/course-main/)" "the course is found in a folder of the zip"
[[ -x "$work/run-windows/cuda-workbook/workbook" ]] || fail "a zip without Unix modes: ./workbook is not executable"
declare -A refusal=(
  [dotdot]="has '..' in its path"
  [absolute]="is an absolute path"
  [symlink]="is a symbolic link"
  [nocourse]="it has no ./workbook with a labs/ folder beside it"
  [twocourses]="it holds more than one course"
  [notazip]="it is not a readable zip file"
)
for name in "${!refusal[@]}"; do
  run_zip "$name" && fail "$name.zip was accepted"
  expect_in "$work/$name.log" "$name.zip cannot be the course's zip: " "$name.zip"
  expect_in "$work/$name.log" "${refusal[$name]}" "$name.zip's reason"
  expect_in "$work/$name.log" "Make the zip with ./workbook pack" "$name.zip says what to do"
  [[ -z "$(ls -A "$work/run-$name")" ]] || fail "$name.zip left $(ls -A "$work/run-$name")"
done
[[ ! -e "$work/evil.txt" && ! -e /tmp/evil.txt ]] || fail "a refused zip wrote outside its folder"
mkdir -p "$work/run-missing"
(cd "$work/run-missing" && WORKBOOK_ZIP="$work/missing.zip" python3 "$work/nb.py") >"$work/missing.log" 2>&1 &&
  fail "a missing zip was accepted"
expect_in "$work/missing.log" "and there is no such file" "a missing zip"
mkdir -p "$work/run-none"
(cd "$work/run-none" && python3 "$work/nb.py") >"$work/none.log" 2>&1 && fail "no zip and no URL was accepted"
expect_in "$work/none.log" "No course yet: set the environment variable WORKBOOK_ZIP" "no zip and no URL"

finish "pack and the notebook's zip: the course packed, unpacked by the notebook's script and lab 01 found; ${#refusal[@]} bad zips refused"
