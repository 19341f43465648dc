#!/usr/bin/env python3
"""Tests of ./workbook's command line, run by ctest (workbook_command_line): no
GPU, no build, seconds.

- Every command's help: `./workbook CMD --help` (and -h, and after a lab name)
  prints that command's part of the help and builds nothing.
- Every `./workbook CMD --option` that a guide names (README.md, docs/*.md,
  labs/*/README.md, grader/README.md; a command continued with a backslash
  included) is in `./workbook --help` and in `./workbook CMD --help`.
- grade's options and labs are checked before anything is built: an unknown
  lab or option, a missing value ("--seed needs a value"), a malformed one.
- A deleted lab file is named with the command that brings it back.
- A lab that does not compile (a stand-in for cmake plays the build) stops
  neither the grade nor the other labs: the grader is given its first error,
  without the compiler's command line, and its stale program is removed.

    python3 tools/tests/workbook_cli_test.py [-v]
"""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKBOOK = ROOT / "workbook"
GUIDES = ["README.md", "docs/*.md", "labs/*/README.md", "grader/README.md"]


def run(args, env=None, workbook=WORKBOOK, cwd=ROOT):
    """Runs ./workbook ARGS with no build folder and no package installs; (status, output, seconds)."""
    full_env = dict(os.environ, WORKBOOK_NO_INSTALL="1", WORKBOOK_BUILD_DIR=str(NO_BUILD))
    full_env.pop("WORKBOOK_BUILD_TARGET", None)
    full_env.update(env or {})
    began = time.monotonic()
    done = subprocess.run([str(workbook), *args], cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    return done.returncode, done.stdout, time.monotonic() - began


def commands():
    """The commands that ./workbook --help lists."""
    status, text, _ = run(["--help"])
    assert status == 0, text
    section = text.split("Commands:", 1)[1].split("\n\n", 1)[0]
    return sorted({m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)", section, re.MULTILINE)})


def guide_commands():
    """(file:line, command, options) of every ./workbook command a guide writes."""
    found = []
    for pattern in GUIDES:
        for path in sorted(ROOT.glob(pattern)):
            lines = path.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, 1):
                for match in re.finditer(r"(?<![\w./-])\./workbook(?![\w-])((?: [a-z][a-z-]*)?)([^`|;&#)]*)", line):
                    rest, following = match.group(2), number
                    # A command continued on the next lines with a backslash.
                    while rest.rstrip().endswith("\\") and following < len(lines):
                        rest = rest.rstrip()[:-1] + " " + lines[following].split("`")[0]
                        following += 1
                    options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest)))
                    where = f"{path.relative_to(ROOT)}:{number}"
                    found.append((where, match.group(1).strip(), options))
    return found


class Help(unittest.TestCase):
    def test_every_command_prints_its_help_and_builds_nothing(self):
        names = commands()
        self.assertIn("grade", names)
        for command in names:
            for flag in ("--help", "-h"):
                with self.subTest(command=command, flag=flag):
                    status, text, seconds = run([command, flag])
                    self.assertEqual(status, 0, f"./workbook {command} {flag}:\n{text}")
                    self.assertIn(command, text)
                    self.assertLess(seconds, 10, f"./workbook {command} {flag} took {seconds:.1f} s")
                    self.assertFalse(NO_BUILD.exists(), f"./workbook {command} {flag} made a build folder")

    def test_a_commands_help_is_its_part_of_the_help(self):
        status, text, _ = run(["grade", "--help"])
        self.assertEqual(status, 0, text)
        for option in ("--seed", "--jobs", "--color", "--check-rubric", "--explain", "--submission"):
            self.assertIn(option, text)
        self.assertNotIn("grade-batch", text)
        self.assertNotIn("basename", text)
        for args in (["grade", "hello", "--help"], ["grade", "--seed", "3", "-h"], ["bench", "hello", "--help"],
                     ["test", "-R", "x", "--help"]):
            with self.subTest(args=args):
                status, text, _ = run(args)
                self.assertEqual(status, 0, text)
                self.assertIn(f"  {args[0]} ", text)
        status, text, _ = run(["test", "--help"])
        self.assertIn("goes to ctest", text)

    def test_every_option_a_guide_names_is_in_the_help(self):
        status, full, _ = run(["--help"])
        self.assertEqual(status, 0, full)
        release = not (ROOT / "solutions").is_dir()
        if release:
            # The students' release prints the help without the full repository's
            # lines (@); its handouts still name the commands that measured their
            # figures (bench --solution), which its ./workbook answers with what to run.
            script = WORKBOOK.read_text(encoding="utf-8")
            full = re.sub(r"^[@%]", "", script.split("<<'HELP'", 1)[1].split("\nHELP\n", 1)[0], flags=re.MULTILINE)
        names = commands()
        helps = {}
        checked = 0
        for where, command, options in guide_commands():
            if command and command not in names:
                self.fail(f"{where}: ./workbook {command}: no such command in ./workbook --help")
            if command and command not in helps:
                helps[command] = run([command, "--help"])[1]
            for option in options:
                checked += 1
                self.assertTrue(option in full, f"{where}: ./workbook {command} {option} is not in ./workbook --help")
                if command and not release:
                    self.assertTrue(option in helps[command],
                                    f"{where}: ./workbook {command} {option} is not in ./workbook {command} --help")
        self.assertGreater(checked, 30)  # the guides name many: the scan found them


class CheckedBeforeBuilding(unittest.TestCase):
    def expect(self, args, message):
        status, text, seconds = run(args)
        self.assertEqual(status, 1, text)
        self.assertIn(message, text)
        self.assertLess(seconds, 10)
        self.assertFalse(NO_BUILD.exists(), f"./workbook {' '.join(args)} made a build folder")

    def test_labs_and_options(self):
        self.expect(["grade", "nosuchlab"], "unknown lab 'nosuchlab'; the labs are: 01-hello-world, 02-abc")
        self.expect(["grade", "hello", "--seed"], "--seed needs a value (see ./workbook grade --help)")
        self.expect(["grade", "hello", "--seed", "--json", "x.json"], "--seed needs a value")
        self.expect(["grade", "--seed", "x"], "--seed needs a non-negative integer, got 'x'")
        self.expect(["grade", "--verbose"], "unknown option '--verbose' (./workbook grade --help lists the options)")
        self.expect(["grade", "--jobs", "0"], "--jobs needs a whole number")
        self.expect(["grade", "--color=blue"], "--color must be auto, always or never, got 'blue'")
        self.expect(["grade", "--timeout-scale", "0"], "--timeout-scale needs a positive number")
        self.expect(["grade", "--sanitize=memcheck,bogus"], "--sanitize: unknown tool 'bogus'")
        self.expect(["grade", "--rubric", "/nonexistent/rubric.json"], "--rubric /nonexistent/rubric.json: no such file")
        self.expect(["grade", "--explain=yes"], "--explain takes no value")
        self.expect(["bench", "hello", "--frobnicate"], "bench: unknown option '--frobnicate'")
        self.expect(["setup", "--frobnicate"], "setup: unknown option '--frobnicate'")
        self.expect(["build", "--frobnicate"], "build takes no arguments")


def fake_workbook(where, labs):
    """A copy of ./workbook beside a CMakeLists.txt with these labs' workbook_add_lab lines,
    in a git repository whose one commit has every lab's files."""
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(WORKBOOK, where / "workbook")
    (where / "CMakeLists.txt").write_text("".join(f"workbook_add_lab({folder} {base})\n" for folder, base in labs))
    for folder, base in labs:
        (where / "labs" / folder).mkdir(parents=True)
        for name in (f"{base}.cu", f"{base}.cuh", "README.md"):
            (where / "labs" / folder / name).write_text("// a lab file\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(where)]
    if shutil.which("git"):
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "labs"], check=True)
    return where / "workbook"


class MissingLabFile(unittest.TestCase):
    def test_is_named_with_the_command_that_brings_it_back(self):
        with tempfile.TemporaryDirectory() as tmp:
            workbook = fake_workbook(Path(tmp), [("01-hello-world", "hello"), ("02-abc", "abc")])
            (Path(tmp) / "labs/02-abc/abc.cu").unlink()
            status, text, _ = run(["grade", "hello"], workbook=workbook, cwd=tmp)
            self.assertEqual(status, 1, text)
            self.assertIn("labs/02-abc/abc.cu: no such file, and the build needs every lab's files", text)
            if shutil.which("git"):
                self.assertIn("git checkout -- labs/02-abc/abc.cu", text)
            shutil.rmtree(Path(tmp) / ".git", ignore_errors=True)
            status, text, _ = run(["build"], workbook=workbook, cwd=tmp)
            self.assertIn("Copy it back from the course's files", text)


# Stand-ins for cmake and ninja: a build in which lab 02's student file does not
# compile. `cmake --build ... -- -k 0` fails as ninja does, after a compile of
# the file (each time: the second, whose output ./workbook keeps, runs only
# that compile again); `ninja -t query` says what is built from what.
FAKE_CMAKE = r"""#!/usr/bin/env bash
echo "cmake $*" >>"$FAKE_LOG"
if [[ "$*" == *"-- -k 0" ]]; then
  echo "[1/3] Building CUDA object CMakeFiles/lab02_student.dir/labs/02-abc/abc.cu.o"
  echo "FAILED: ${FAKE_CODE}CMakeFiles/lab02_student.dir/labs/02-abc/abc.cu.o "
  echo "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -Werror=all-warnings -c abc.cu -o error.o"
  echo "$FAKE_ROOT/labs/02-abc/abc.cu(57): error: identifier \"retur\" is undefined"
  echo "$FAKE_ROOT/labs/02-abc/abc.cu(60): error: expected a \";\""
  echo "ninja: build stopped: cannot make progress due to previous errors."
  exit 1
fi
"""
FAKE_NINJA = r"""#!/usr/bin/env bash
case "${*: -1}" in
  *abc.cu.o) printf '%s\n' "x:" "  input: CUDA" "    abc.cu" "  outputs:" "    liblab02_student.a" ;;
  liblab02_student.a) printf '%s\n' "x:" "  outputs:" "    lab02_tests_student" "    all" ;;
esac
"""


class ALabThatDoesNotCompile(unittest.TestCase):
    def test_scores_zero_with_its_first_error_and_the_others_are_graded(self):
        # Ninja before 1.12 prints "FAILED: OUTPUT"; 1.12 and later "FAILED: [code=2] OUTPUT"
        # (the H200's, where the first form alone made the broken lab stop the whole grade).
        for code in ("", "[code=2] "):
            with self.subTest(ninja_failed_line=f"FAILED: {code}OUTPUT"):
                self.broken_lab(code)

    def broken_lab(self, code):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            workbook = fake_workbook(tmp / "root", [("01-hello-world", "hello"), ("02-abc", "abc")])
            build, stubs = tmp / "build", tmp / "stubs"
            (build / "grader").mkdir(parents=True)
            stubs.mkdir()
            (build / "build.ninja").write_text("")
            for stale in ("lab02_tests_student", "liblab02_student.a", "lab01_tests_student", "all"):
                (build / stale).write_text("built before")
            grader = build / "grader/workbook-grader"
            grader.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" >"$FAKE_ARGS"\n'
                              'echo "grader help: $WORKBOOK_GRADER_HELP"\n')
            for name, text in (("cmake", FAKE_CMAKE), ("ninja", FAKE_NINJA)):
                (stubs / name).write_text(text)
            for path in (grader, stubs / "cmake", stubs / "ninja"):
                path.chmod(0o755)
            env = {"WORKBOOK_BUILD_DIR": str(build), "PATH": f"{stubs}:{os.environ['PATH']}",
                   "CUDACXX": "/bin/true", "FAKE_ROOT": str(tmp / "root"), "FAKE_LOG": str(tmp / "cmake.log"),
                   "FAKE_ARGS": str(tmp / "args"), "FAKE_CODE": code}
            status, text, _ = run(["grade", "hello", "abc"], env=env, workbook=workbook, cwd=tmp / "root")
            self.assertEqual(status, 0, text)
            self.assertIn("lab 02-abc does not compile; its first error:\n"
                          '  labs/02-abc/abc.cu(57): error: identifier "retur" is undefined', text)
            self.assertIn("It scores 0; fix that error and grade it again.", text)
            # The build's own output keeps the errors but not the compiler's command line.
            self.assertIn('error: identifier "retur" is undefined', text.split("lab 02-abc does not compile")[0])
            self.assertNotIn("-forward-unknown-to-host-compiler", text)
            self.assertIn("grader help: ./workbook grade --help", text)
            args = (tmp / "args").read_text().splitlines()
            self.assertIn("--build-error", args)
            self.assertIn('02-abc=labs/02-abc/abc.cu(57): error: identifier "retur" is undefined', args)
            self.assertIn("hello", args)
            self.assertIn("abc", args)
            self.assertFalse((build / "lab02_tests_student").exists(), "the stale program was left")
            self.assertFalse((build / "liblab02_student.a").exists(), "the stale library was left")
            self.assertTrue((build / "lab01_tests_student").exists() and (build / "all").exists())
            calls = (tmp / "cmake.log").read_text()
            self.assertIn("--target workbook-grader lab01_tests_student lab02_tests_student -- -k 0", calls)
            log = (build / "build-errors/02-abc.log").read_text()
            self.assertIn('abc.cu(60): error: expected a ";"', log)  # the whole output is kept

            # --build-only: the build is not complete.
            status, text, _ = run(["grade", "--build-only"], env=env, workbook=workbook, cwd=tmp / "root")
            self.assertEqual(status, 1, text)
            self.assertIn("The build is not complete.", text)


NO_BUILD = None

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        NO_BUILD = Path(scratch) / "no-build"
        unittest.main()
